// Custom slash commands managed over real HTTP, through Client4 where it has a method (addCommand, editCommand,
// getCustomTeamCommands, getCommandsList, getAutocompleteCommandsList, getCommandAutocompleteSuggestionsList,
// regenCommandToken, deleteCommand): fields, Mattermost's validation ids, who may do what, sanitised lists, the
// EnableCommands switch, and the delivery log's permissions.
import { expectAppError, expectClientError } from '../support/assertions';
import { client4For } from '../support/client4';
import { createTeam, createUser, startTestServer, type Actor, type TestServer } from '../support/server';

let server: TestServer;
let admin: Actor;
/** Team admin of `teamId` (created it) and of `ownerTeamB`. */
let owner: Actor;
/** A plain member of `teamId`. */
let member: Actor;
let teamId: string;
let ownerTeamB: string;
/** A team `owner` is a plain member of. */
let foreignTeam: string;
let seq = 0;
const trigger = () => `cmd${process.pid}x${++seq}`;
const body = (fields: Record<string, unknown> = {}) => ({ team_id: teamId, trigger: trigger(), method: 'P', url: 'https://integration.example.com/cmd', ...fields });
const setCommands = (on: boolean) => admin.api.put('/api/v4/config/patch', { ServiceSettings: { EnableCommands: on } }).expect(200);

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server);
  owner = await createUser(server, admin);
  member = await createUser(server, admin);
  teamId = await createTeam(owner, `cmds${process.pid}`, [member]);
  ownerTeamB = await createTeam(owner, `cmdsb${process.pid}`);
  foreignTeam = await createTeam(admin, `cmdsf${process.pid}`, [owner]);
});
afterAll(() => server.close());

describe('through Client4', () => {
  test('addCommand, getCustomTeamCommands, editCommand, regenCommandToken, deleteCommand', async () => {
    const c = client4For(server, owner);
    const t = trigger();
    const made = await c.addCommand({ ...body(), trigger: t.toUpperCase(), display_name: 'Deploy', description: 'Deploys', auto_complete: true, auto_complete_hint: '[service]', auto_complete_desc: 'Deploy a service', username: 'deployer' } as never);
    expect(made).toMatchObject({ team_id: teamId, creator_id: owner.id, trigger: t, method: 'P', url: 'https://integration.example.com/cmd', display_name: 'Deploy', description: 'Deploys', auto_complete: true, auto_complete_hint: '[service]', delete_at: 0, plugin_id: '' });
    expect(made.id).toMatch(/^[a-z0-9]{26}$/);
    expect(made.token).toMatch(/^[a-z0-9]{26}$/);
    expect(made.create_at).toBe(made.update_at);

    const custom = await c.getCustomTeamCommands(teamId);
    expect(custom.find((x) => x.id === made.id)).toEqual(made);

    const edited = await c.editCommand({ ...made, trigger: `${t}e`, method: 'G', url: 'https://integration.example.com/other', display_name: 'Renamed' });
    expect(edited).toMatchObject({ id: made.id, token: made.token, creator_id: owner.id, trigger: `${t}e`, method: 'G', display_name: 'Renamed', create_at: made.create_at });
    expect(edited.update_at).toBeGreaterThanOrEqual(made.update_at);
    expect((await owner.api.get(`/api/v4/commands/${made.id}`).expect(200)).body).toEqual(edited);

    const { token } = await c.regenCommandToken(made.id);
    expect(token).toMatch(/^[a-z0-9]{26}$/);
    expect(token).not.toBe(made.token);
    expect((await owner.api.get(`/api/v4/commands/${made.id}`).expect(200)).body.token).toBe(token);

    expect(await c.deleteCommand(made.id)).toEqual({ status: 'OK' });
    expectAppError(await owner.api.get(`/api/v4/commands/${made.id}`), 404, 'store.sql_command.save.get.app_error');
    expect((await c.getCustomTeamCommands(teamId)).some((x) => x.id === made.id)).toBe(false);
  });

  test('getCommandsList: built-ins and custom commands, sanitised, for a manager; the autocomplete list for a plain member', async () => {
    const made = (await owner.api.post('/api/v4/commands', body({ auto_complete: true, auto_complete_desc: 'shown' })).expect(201)).body;
    const hidden = (await owner.api.post('/api/v4/commands', body({ auto_complete: false })).expect(201)).body;
    const forOwner = await client4For(server, owner).getCommandsList(teamId);
    const mine = forOwner.find((x) => x.id === made.id);
    expect(mine).toMatchObject({ trigger: made.trigger, token: '', creator_id: '', method: '', url: '', username: '', icon_url: '', auto_complete_desc: 'shown' });
    expect(forOwner.some((x) => x.id === hidden.id)).toBe(true);
    expect(forOwner.map((x) => x.trigger)).toEqual(expect.arrayContaining(['echo', 'join', 'me', 'shrug', 'invite', 'kick', 'search']));

    const forMember = await client4For(server, member).getCommandsList(teamId);
    expect(forMember.find((x) => x.id === made.id)).toMatchObject({ token: '', url: '' });
    expect(forMember.some((x) => x.id === hidden.id)).toBe(false);
    expect(forMember.map((x) => x.trigger)).toEqual(expect.arrayContaining(['echo', 'join']));
    await expectClientError(client4For(server, member).getCustomTeamCommands(teamId), 403, 'api.context.permissions.app_error');
    expectAppError(await member.api.get('/api/v4/commands'), 400, 'api.context.invalid_param.app_error');
    expectAppError(await member.api.get(`/api/v4/commands?team_id=${foreignTeam}`), 403, 'api.context.permissions.app_error');
  });

  test('getAutocompleteCommandsList and getCommandAutocompleteSuggestionsList (capitalised keys)', async () => {
    const t = trigger();
    await owner.api.post('/api/v4/commands', body({ trigger: t, auto_complete: true, auto_complete_desc: 'Deploy it', auto_complete_hint: '[what]' })).expect(201);
    const list = await client4For(server, member).getAutocompleteCommandsList(teamId);
    expect(list.find((x) => x.trigger === t)).toMatchObject({ auto_complete: true, auto_complete_desc: 'Deploy it', token: '', url: '' });
    expect(list.find((x) => x.trigger === 'echo')).toMatchObject({ auto_complete: true, auto_complete_hint: "'message' [delay in seconds]", id: '' });

    const c = client4For(server, member);
    expect(await c.getCommandAutocompleteSuggestionsList('/ec', teamId, {} as never)).toEqual([
      { Complete: 'echo', Suggestion: 'echo', Hint: "'message' [delay in seconds]", Description: 'Echo back text from your account', IconData: '' },
    ]);
    expect(await c.getCommandAutocompleteSuggestionsList(`/${t.slice(0, -1)}`, teamId, {} as never)).toEqual(
      expect.arrayContaining([{ Complete: t, Suggestion: t, Hint: '[what]', Description: 'Deploy it', IconData: '' }]),
    );
    expect(await c.getCommandAutocompleteSuggestionsList('/echo hi', teamId, {} as never)).toEqual([]);
    expectAppError(await member.api.get(`/api/v4/teams/${teamId}/commands/autocomplete_suggestions`), 400, 'api.context.invalid_param.app_error');
    expectAppError(await member.api.get(`/api/v4/teams/${foreignTeam}/commands/autocomplete`), 403, 'api.context.permissions.app_error');
  });
});

describe("Mattermost's validation", () => {
  test.each([
    ['an empty trigger', 'model.command.is_valid.trigger.app_error', { trigger: '' }],
    ['a trigger with a slash', 'model.command.is_valid.trigger.app_error', { trigger: '/deploy' }],
    ['a trigger with a space', 'model.command.is_valid.trigger.app_error', { trigger: 'de ploy' }],
    ['a trigger of 129 characters', 'model.command.is_valid.trigger.app_error', { trigger: 'a'.repeat(129) }],
    ['no url', 'model.command.is_valid.url.app_error', { url: '' }],
    ['a url that is not http(s)', 'model.command.is_valid.url_http.app_error', { url: 'ftp://integration.example.com/x' }],
    ['a method other than P or G', 'model.command.is_valid.method.app_error', { method: 'X' }],
    ['no method', 'model.command.is_valid.method.app_error', { method: null }],
    ['a display name of 65 bytes', 'model.command.is_valid.display_name.app_error', { display_name: 'd'.repeat(65) }],
    ['a description of 129 bytes', 'model.command.is_valid.description.app_error', { description: 'd'.repeat(129) }],
    ['the trigger of a built-in command', 'api.command.duplicate_trigger.app_error', { trigger: 'Echo' }],
  ])('%s is 400 %s', async (_name, id, fields) => {
    expectAppError(await owner.api.post('/api/v4/commands', body(fields)), 400, id);
  });

  test('a trigger another command of the team has, in any letter case, is taken; on another team it is free', async () => {
    const t = trigger();
    await owner.api.post('/api/v4/commands', body({ trigger: t })).expect(201);
    expectAppError(await owner.api.post('/api/v4/commands', body({ trigger: t.toUpperCase() })), 400, 'api.command.duplicate_trigger.app_error');
    await owner.api.post('/api/v4/commands', body({ team_id: ownerTeamB, trigger: t })).expect(201);
  });

  test('update: the body id must be the path id, the team cannot change, the trigger stays unique', async () => {
    const a = (await owner.api.post('/api/v4/commands', body()).expect(201)).body;
    const b = (await owner.api.post('/api/v4/commands', body()).expect(201)).body;
    expectAppError(await owner.api.put(`/api/v4/commands/${a.id}`, { ...a, id: b.id }), 400, 'api.context.invalid_param.app_error');
    expectAppError(await owner.api.put(`/api/v4/commands/${a.id}`, { ...a, team_id: ownerTeamB }), 400, 'api.command.team_mismatch.app_error');
    expectAppError(await owner.api.put(`/api/v4/commands/${a.id}`, { ...a, trigger: b.trigger }), 400, 'api.command.duplicate_trigger.app_error');
    // The server's own fields are kept whatever the body says.
    const kept = (await owner.api.put(`/api/v4/commands/${a.id}`, { ...a, token: 'x'.repeat(26), creator_id: member.id, create_at: 1 }).expect(200)).body;
    expect(kept).toMatchObject({ token: a.token, creator_id: owner.id, create_at: a.create_at });
  });
});

describe('who may do what', () => {
  test('a plain member may not create; a team admin may create for another user who exists', async () => {
    await expectClientError(client4For(server, member).addCommand(body() as never), 403, 'api.context.permissions.app_error');
    const forMember = (await owner.api.post('/api/v4/commands', body({ creator_id: member.id })).expect(201)).body;
    expect(forMember.creator_id).toBe(member.id);
    expectAppError(await owner.api.post('/api/v4/commands', body({ creator_id: 'a'.repeat(26) })), 404, 'app.user.missing_account.const');
    // On a team where the owner is a plain member: no.
    expectAppError(await owner.api.post('/api/v4/commands', body({ team_id: foreignTeam })), 403, 'api.context.permissions.app_error');
  });

  test('a command the caller may not manage is as good as missing (404) for get, update, delete, regen and its log', async () => {
    const made = (await owner.api.post('/api/v4/commands', body()).expect(201)).body;
    const notFound = 'store.sql_command.save.get.app_error';
    expectAppError(await member.api.get(`/api/v4/commands/${made.id}`), 404, notFound);
    expectAppError(await member.api.put(`/api/v4/commands/${made.id}`, made), 404, notFound);
    expectAppError(await member.api.delete(`/api/v4/commands/${made.id}`), 404, notFound);
    expectAppError(await member.api.put(`/api/v4/commands/${made.id}/regen_token`), 404, notFound);
    expectAppError(await member.api.get(`/api/v4/commands/${made.id}/deliveries`), 404, notFound);
    expectAppError(await member.api.get(`/api/v4/commands/${'a'.repeat(26)}`), 404, notFound);
    // Still there for its owner, who sees an empty delivery log.
    expect((await owner.api.get(`/api/v4/commands/${made.id}/deliveries`).expect(200)).body).toEqual([]);
    expect((await admin.api.get(`/api/v4/commands/${made.id}`).expect(200)).body.id).toBe(made.id);
  });

  test('move: to another team the caller and the creator manage; the trigger must be free there; never to a team they do not manage', async () => {
    const made = (await owner.api.post('/api/v4/commands', body()).expect(201)).body;
    expectAppError(await owner.api.put(`/api/v4/commands/${made.id}/move`, { team_id: foreignTeam }), 403, 'api.context.permissions.app_error');
    expectAppError(await owner.api.put(`/api/v4/commands/${made.id}/move`, { team_id: 'a'.repeat(26) }), 404, 'app.team.get.find.app_error');
    expect((await owner.api.put(`/api/v4/commands/${made.id}/move`, { team_id: ownerTeamB }).expect(200)).body).toEqual({ status: 'OK' });
    expect((await owner.api.get(`/api/v4/commands/${made.id}`).expect(200)).body.team_id).toBe(ownerTeamB);
    // A command of the owner's moved by a system admin to a team where the owner may not manage commands: refused.
    expectAppError(await admin.api.put(`/api/v4/commands/${made.id}/move`, { team_id: foreignTeam }), 400, 'api.command.move_command.creator_no_permission.app_error');
    const clash = (await owner.api.post('/api/v4/commands', body({ trigger: made.trigger })).expect(201)).body;
    expectAppError(await owner.api.put(`/api/v4/commands/${clash.id}/move`, { team_id: ownerTeamB }), 400, 'api.command.duplicate_trigger.app_error');
  });
});

describe('ServiceSettings.EnableCommands', () => {
  test('off: managing commands is 501; autocomplete lists only the built-ins', async () => {
    const made = (await owner.api.post('/api/v4/commands', body({ auto_complete: true })).expect(201)).body;
    await setCommands(false);
    try {
      const disabled = 'api.command.disabled.app_error';
      expectAppError(await owner.api.post('/api/v4/commands', body()), 501, disabled);
      expectAppError(await owner.api.get(`/api/v4/commands/${made.id}`), 501, disabled);
      expectAppError(await owner.api.get(`/api/v4/commands?team_id=${teamId}&custom_only=true`), 501, disabled);
      expectAppError(await owner.api.delete(`/api/v4/commands/${made.id}`), 501, disabled);
      expectAppError(await owner.api.put(`/api/v4/commands/${made.id}/regen_token`), 501, disabled);
      const list = (await member.api.get(`/api/v4/teams/${teamId}/commands/autocomplete`).expect(200)).body as Array<{ trigger: string }>;
      expect(list.some((x) => x.trigger === made.trigger)).toBe(false);
      expect(list.some((x) => x.trigger === 'echo')).toBe(true);
    } finally {
      await setCommands(true);
    }
  });
});
