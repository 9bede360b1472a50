// The audience suites (test/realtime): five users, one socket each, and an assertion of who receives an event AND who
// does not.
import { createTeam, createUser, createWorld, type Actor, type TestServer, type World } from './server';
import { connect, type Frame, type Socket } from './ws';

export const NAMES = ['admin', 'alice', 'bob', 'carol', 'dave'] as const;
export type Name = (typeof NAMES)[number];

export interface AudienceWorld extends Record<Name, Actor> {
  world: World;
}

/**
 * createWorld's admin and member (Alice); Bob and Dave on its team too; Carol on a team of her own (`elsewhere`, its
 * name) only.
 */
export async function createAudienceWorld(server: TestServer, elsewhere: string): Promise<AudienceWorld> {
  const world = await createWorld(server);
  const admin = world.admin;
  const bob = await createUser(server, admin);
  const carol = await createUser(server, admin);
  const dave = await createUser(server, admin);
  for (const u of [bob, dave]) await admin.api.post(`/api/v4/teams/${world.teamId}/members`, { team_id: world.teamId, user_id: u.id }).expect(201);
  await createTeam(carol, elsewhere);
  return { world, admin, alice: world.member, bob, carol, dave };
}

export interface Audience {
  /** One socket per name, once connectAll has run. */
  sockets: Map<Name, Socket>;
  /** Connects a socket for each actor, in the order of NAMES, each resolved after its hello. */
  connectAll(server: TestServer, actors: Record<Name, Actor>): Promise<void>;
  /** Runs `action`, then expects a matching event on exactly the sockets of `to` (and, within a grace period, on no other). */
  expectAudience(action: () => Promise<unknown>, match: (f: Frame) => boolean, to: Name[]): Promise<Map<Name, Frame>>;
  /** No socket received a frame that broke the spec or the sequence rules (for afterEach). */
  expectNoProblems(): void;
  closeAll(): Promise<void>;
}

export function audience(): Audience {
  const sockets = new Map<Name, Socket>();
  return {
    sockets,
    connectAll: async (server, actors) => {
      for (const n of NAMES) sockets.set(n, await connect(server.url, { token: actors[n].token }));
    },
    expectAudience: async (action, match, to) => {
      const marks = new Map([...sockets].map(([n, s]) => [n, s.events.length]));
      await action();
      const got = new Map<Name, Frame>();
      for (const n of to) got.set(n, await (sockets.get(n) as Socket).next(match, { from: marks.get(n) }));
      // Any other recipient would have had the same time to receive it, and more (a fixed grace on purpose: the claim is
      // that nothing arrives).
      await new Promise((r) => setTimeout(r, 150));
      const wrong = NAMES.filter((n) => !to.includes(n) && (sockets.get(n) as Socket).events.slice(marks.get(n)).some(match));
      expect(wrong).toEqual([]);
      return got;
    },
    expectNoProblems: () => {
      for (const [n, s] of sockets) expect([n, s.problems]).toEqual([n, []]);
    },
    closeAll: async () => {
      for (const s of sockets.values()) await s.close();
    },
  };
}
