/* DO NOT EDIT: generated from openapi/ by npm run gen. */
export interface paths {
    "/api/v4/system/ping": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Check that the server is healthy
         * @description Reports whether the server is up and, on request, whether its database and file store respond. Load balancers
         *     and Client4's `ping()` call this. Without `use_rest_semantics` an unhealthy server still answers 200 with
         *     status `UNHEALTHY`; with `use_rest_semantics=true` (which Client4 always sends) it answers 500 instead.
         *
         *     Permissions: none
         */
        get: operations["GetPing"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the server configuration
         * @description Returns the effective configuration, with values from environment variables applied and secrets (such as
         *     SqlSettings.DataSource) masked.
         *
         *     Permissions: manage_system
         */
        get: operations["GetConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/config/patch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change part of the server configuration
         * @description Merges the given settings into the stored configuration and returns the result. Only the keys present in
         *     the body change; nested sections are merged key by key. The change is stored in the database, so every
         *     server process sharing it picks it up. Settings read only at start-up (ListenAddress, SqlSettings) take
         *     effect after a restart.
         *
         *     Permissions: manage_system
         */
        put: operations["PatchConfig"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/config/client": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the configuration clients need
         * @description Returns the subset of the configuration that clients use, as a flat map of strings. Without a session the
         *     limited subset is returned (enough to render the login and sign-up pages, including `NoAccounts`); with a
         *     valid session the full client subset.
         *
         *     Only the legacy format is implemented, as on Mattermost servers before v11: `format=old` is required. The
         *     parameter is optional in this spec so that the server, not the validator, can answer a missing value with
         *     501 `api.config.client.old_format.app_error` and any other value with 400. Client4 always sends `format=old`.
         *
         *     Permissions: none (a session, if sent, unlocks the full subset)
         */
        get: operations["GetClientConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/websocket": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open the real-time connection (WebSocket)
         * @description Upgrades to a WebSocket that carries Mattermost's real-time API. Authenticate with the session cookie or an
         *     `Authorization` header on the upgrade, or send the `authentication_challenge` action with the token within 5
         *     seconds (otherwise the socket closes). The server then sends `hello` (seq 0), and every later event has a `seq`
         *     one higher; replies to actions carry `seq_reply` instead. Which events a user receives follows what they may read:
         *     a channel's events go to its members only, a team's to its members, a user's to that user.
         *
         *     To resume after a dropped connection, reconnect with `?connection_id=<from hello>&sequence_number=<the seq
         *     expected next>` (authenticated on the upgrade) within WebSocketSettings.ReplayWindowSeconds: the missed events
         *     come in order, with their original numbers, and the connection carries on; when they cannot all be replayed, a
         *     new `hello` (with a new connection_id) says to refetch. The server pings every 30 s and drops a socket that
         *     does not answer, or one that falls too far behind. A browser page of another site cannot open it (Origin check).
         *     A plain GET (no upgrade) is 400.
         *
         *     Permissions: an active session, given on the upgrade or by `authentication_challenge`
         */
        get: operations["ConnectWebSocket"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/license/client": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the license features clients need
         * @description The license as a flat map of strings, as Mattermost serves it to its web, desktop and mobile apps on every page
         *     load. Parley has no license: the answer is an unlicensed server's, `IsLicensed: "false"` (with `Cloud` and
         *     `IsTrial` `"false"` and no `SkuShortName`), so the apps hide every licensed feature. `format=old` is what the apps
         *     send; the newest Mattermost servers ignore the parameter, and so does Parley, except that a value other than
         *     `old` is 400 as on the servers that read it.
         *
         *     Permissions: none
         */
        get: operations["GetClientLicense"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/limits/server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the server's usage limits
         * @description The limits the apps check after loading the user (Mattermost's ServerLimits). Parley has none: every limit is 0
         *     (no limit) and `postHistoryLimit` 0 (all history is accessible). A system admin also gets `activeUserCount`, the
         *     number of active (not deactivated) users; for everyone else it is 0, as Mattermost answers.
         *
         *     Permissions: a session
         */
        get: operations["GetServerLimits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users
         * @description Returns a page of users, optionally filtered by team or channel membership. Other users' profiles are
         *     sanitised according to PrivacySettings. `not_in_channel` is combined with `in_team` (as Client4 does) to list
         *     team members who are not in the channel.
         *
         *     Permissions: an active session; filtering on a team or channel requires being able to view it
         */
        get: operations["GetUsers"];
        put?: never;
        /**
         * Create a user account
         * @description Creates an account with e-mail and password. On an empty server the first account needs no session and
         *     becomes a system admin (roles `system_admin system_user`); later accounts get `system_user`.
         *
         *     Without a session, sign-up must be allowed by TeamSettings.EnableUserCreation (else 501
         *     `api.user.create_user.signup_email_disabled.app_error`) and, unless a team invite (`iid`) is given,
         *     TeamSettings.EnableOpenServer (else 403 `api.user.create_user.no_open_server`). A system admin may always
         *     create accounts. The username and e-mail are stored in lower case; their format and uniqueness are checked by the
         *     server, which answers 400 with Mattermost's field-specific error ids.
         *
         *     With `iid` (a team's invite id, from its invite link) the account is created even on a closed server and joins
         *     that team and its town-square and off-topic in the same transaction (`added_to_team` to the new user). An
         *     unknown or regenerated invite id, or one of an archived team, is 404
         *     `app.team.get_by_invite_id.finding.app_error`; an e-mail outside the team's `allowed_domains` is 403
         *     `api.team.invite_members.invalid_email.app_error`; EnableUserCreation still applies, to admins too, as in
         *     Mattermost. Parley sends no e-mail invitations, so a `t` token is never valid: 404
         *     `api.user.create_user.signup_link_invalid.app_error`.
         *
         *     Permissions: none when sign-up is open, with a team invite, or for the first account; otherwise create_user
         *     (system admin)
         */
        post: operations["CreateUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in with a username or e-mail and a password
         * @description Checks the credentials and opens a session. The session token is returned in the `Token` response header;
         *     send it as `Authorization: Bearer <token>` afterwards. For a browser login, one sent with
         *     `X-Requested-With: XMLHttpRequest` (as Mattermost's web app and Client4 do), the same session is also set as
         *     cookies: `MMAUTHTOKEN` (the token; HttpOnly), `MMUSERID` (the user's id) and `MMCSRF` (the session's CSRF token,
         *     which a page must send back in the `X-CSRF-Token` header on every request that changes something; see the
         *     introduction); any other login gets no cookies, as in Mattermost. The body is the logged-in user. Identify the
         *     account either by `login_id` (username or e-mail) or by `id`. As Mattermost reads this body as a map of strings,
         *     every field but `password` may be null, which means not given (mattermostdriver sends `"token": null`). Deactivated accounts and bots cannot log in (401).
         *     After `ServiceSettings.MaximumLoginAttempts` wrong passwords the account is locked (401
         *     `api.user.check_user_login_attempts.too_many.app_error`, the right password included) for
         *     `LoginLockoutMinutes`, doubled for each further lock in a row (at most 24 hours); a login id that names no
         *     account gets exactly the same answers.
         *
         *     Permissions: none
         */
        post: operations["Login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log out
         * @description Revokes the session of the token sent with the request, if any. It always succeeds, also without a token or
         *     with one that is already invalid. A browser logging out with its session cookie must send the CSRF token like
         *     any other state change (401 otherwise).
         *
         *     Permissions: none
         */
        post: operations["Logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/ids": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get several users by id
         * @description Returns the users with the given ids; unknown ids are left out. Profiles of other users are sanitised
         *     according to PrivacySettings.
         *
         *     Permissions: an active session
         */
        post: operations["GetUsersByIds"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/usernames": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get several users by username
         * @description Returns the users with the given usernames (matched exactly, in lower case as usernames are stored); unknown
         *     ones are left out. Profiles of other users are sanitised according to PrivacySettings. An empty list is 400.
         *
         *     Permissions: an active session
         */
        post: operations["GetUsersByUsernames"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/autocomplete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Find users by the start of their names
         * @description Users whose username, nickname, first name or last name starts with `name` (letter case ignored; a leading
         *     `@` is dropped; each word of a several-word term must start one of those names). First and last names are
         *     searched only where the caller may see them (PrivacySettings.ShowFullName, or a system admin); e-mail addresses
         *     never. Deactivated users are left out. With `in_channel` (which needs `in_team`: 400
         *     `api.user.autocomplete_users.missing_team_id.app_error` otherwise), `users` are the channel's members and
         *     `out_of_channel` the team's other members; with only `in_team`, the team's members; with neither, everyone.
         *     Each list holds at most `limit` users (default 100, at most 1000), sorted by username.
         *
         *     Permissions: view_team for `in_team`; read_channel for `in_channel`
         */
        get: operations["AutocompleteUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/username/{username}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a user by username
         * @description Returns the user with this username (compared in lower case). Another user's profile is sanitised according
         *     to PrivacySettings.
         *
         *     Permissions: an active session
         */
        get: operations["GetUserByUsername"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a user
         * @description Returns one user; `me` returns the caller. Another user's profile is sanitised according to PrivacySettings.
         *     The response carries an ETag; a matching `If-None-Match` gets 304.
         *
         *     Permissions: an active session
         */
        get: operations["GetUser"];
        put?: never;
        post?: never;
        /**
         * Deactivate a user
         * @description Deactivates the user, as UpdateUserActive with active=false: every session ends and every access token is
         *     deleted at once. The account stays (its posts keep their author).
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        delete: operations["DeleteUser"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/patch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change some fields of a user
         * @description Updates only the fields present in the body and returns the updated user. Username and e-mail are checked
         *     and lower-cased as on creation. Changing your own e-mail address takes your password in `password` (400 without
         *     it; 401 `api.user.check_user_password.invalid.app_error` when wrong, counted per session like UpdatePassword's
         *     current password: a lock on the account's logins does not stop it).
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        put: operations["PatchUser"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/roles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a user's system roles
         * @description Sets the user's system roles: `system_user`, optionally with `system_admin` and `system_user_access_token`
         *     (space-separated). Other role names, or roles without `system_user`, are 400 (invalid `roles`). An unknown user
         *     is 400 `app.user.missing_account.const`, as in Mattermost. Taking `system_admin` from the last active system admin
         *     is 400 (`app.user.update.lastAdmin.app_error`), so the server always keeps one. The new roles apply to the
         *     user's sessions at once, and the user is told through a `user_role_updated` event.
         *
         *     Permissions: manage_roles (system admins)
         */
        put: operations["UpdateUserRoles"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a user's profile picture
         * @description The user's profile picture as a PNG: the one they uploaded (SetProfileImage, 128×128), else the generated
         *     default (see GetDefaultProfileImage). Browsers may load it with `<img src>`: the session cookie is enough. The
         *     ETag changes with the picture (an upload, a reset, a new username initial); a matching `If-None-Match` gets 304.
         *     Clients add `?_=<last_picture_update>` to bust caches, which is accepted and ignored.
         *
         *     Permissions: an active session
         */
        get: operations["GetProfileImage"];
        put?: never;
        /**
         * Upload a profile picture
         * @description Sets the user's profile picture from an image sent as the `image` part of a `multipart/form-data` body (PNG,
         *     JPEG or GIF; a GIF's first frame). The image is turned upright (EXIF orientation), cut to a centred square and
         *     scaled to 128×128, and stored as a PNG in the server's file storage; GetProfileImage serves it from then on. The
         *     user's `last_picture_update` (and `update_at`) become the time of the upload, and everyone gets `user_updated`.
         *
         *     A body larger than FileSettings.MaxFileSize is 413 `api.user.upload_profile_user.too_large.app_error`; no
         *     `image` part is 400 `api.user.upload_profile_user.no_file.app_error`; a body that is not a readable form is 400
         *     `api.user.upload_profile_user.parse.app_error` (Mattermost answers 500); a part that is not an image, or an
         *     image of more than 33177600 pixels (7680×4320, FileSettings.MaxImageResolution's default), is 400
         *     `api.user.upload_profile_user.check_image_limits.app_error`; another image format, or one that cannot be
         *     decoded, is 400 `api.user.upload_profile_user.decode.app_error`. Without file storage: 501
         *     `api.user.upload_profile_user.storage.app_error`. An unknown user (for an admin) is 400
         *     `api.context.invalid_url_param.app_error`, as Mattermost answers.
         *
         *     Permissions: the user themselves, or edit_other_users (system admins)
         */
        post: operations["SetProfileImage"];
        /**
         * Go back to the default profile picture
         * @description Removes the user's uploaded picture: GetProfileImage serves the generated default again. As Mattermost does,
         *     `last_picture_update` becomes the time of the reset, negated (a new value for clients' cache-busting URLs, and
         *     below zero: no uploaded picture); `update_at` moves, and everyone gets `user_updated`. Resetting a user who has
         *     no uploaded picture succeeds the same way. Without file storage: 501
         *     `api.user.upload_profile_user.storage.app_error`; an unknown user is 404 `app.user.missing_account.const`.
         *
         *     Permissions: the user themselves, or edit_other_users (system admins)
         */
        delete: operations["SetDefaultProfileImage"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/image/default": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a user's default profile picture
         * @description The picture generated for a user, drawn as Mattermost draws it: a 128×128 PNG whose background colour is chosen
         *     from the user id (FNV-1a hash, Mattermost's palette of 26 colours) with the first character of the username,
         *     upper-cased, in white. The same user with the same username always gets the same bytes.
         *
         *     Permissions: an active session
         */
        get: operations["GetDefaultProfileImage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's access tokens
         * @description The user's personal access tokens, without their secrets.
         *
         *     Permissions: read_user_access_token, and for another user also edit_other_users
         */
        get: operations["GetUserAccessTokensForUser"];
        put?: never;
        /**
         * Create a personal access token
         * @description Creates a token that authenticates as the user, like a session token, until it is revoked or expires. The
         *     secret is returned only in this response. Answers 501 when ServiceSettings.EnableUserAccessTokens is off.
         *
         *     Permissions: create_user_access_token; for another user also edit_other_users
         */
        post: operations["CreateUserAccessToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a user's status
         * @description The user's presence. A user who never had one is offline. An online user quiet for
         *     TeamSettings.UserStatusAwayTimeout seconds reads as away.
         *
         *     Permissions: an active session
         */
        get: operations["GetUserStatus"];
        /**
         * Set a user's status
         * @description Sets the presence by hand: online, away, offline or dnd (do not disturb, optionally until dnd_end_time, in Unix
         *     seconds, then back to what it was). A status set by hand other than online is kept whatever the user does until
         *     changed. The user is told through a status_change event.
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        put: operations["UpdateUserStatus"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/status/ids": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get the statuses of several users
         * @description The presence of each user named, in the order given (unknown users are offline).
         *
         *     Permissions: an active session
         */
        post: operations["GetUsersStatusesByIds"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change a password
         * @description Sets a new password. A user changing their own must give the current one (400
         *     api.user.update_password.incorrect.app_error when wrong). Wrong guesses are counted per session, not against the
         *     account's logins: after MaximumLoginAttempts of them that session gets 401
         *     api.user.check_user_login_attempts.too_many.app_error until the lock expires (LoginLockoutMinutes), while an
         *     account locked by other people's failed logins can still change its password from a session it has. A system
         *     admin may set another user's without it. Either way a new password unlocks an account locked by failed logins.
         *     Every other session of the user is revoked; the caller's own is kept.
         *
         *     Permissions: the user themselves, or manage_system
         */
        put: operations["UpdatePassword"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/active": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Deactivate or reactivate a user
         * @description Deactivating ends every session and deletes every access token of the user at once; they cannot log in until
         *     reactivated. Reactivating restores login (not the old tokens).
         *
         *     Permissions: manage_system; a user may deactivate themselves
         */
        put: operations["UpdateUserActive"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's sessions
         * @description The user's login sessions, most recently used first. Tokens are never shown. Personal access tokens are listed
         *     by GetUserAccessTokensForUser.
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        get: operations["GetSessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/sessions/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke one session
         * @description Ends one login session of the user at once: its token stops working on the next request and its WebSocket
         *     connections are closed.
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        post: operations["RevokeSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/sessions/revoke/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke every session of a user
         * @description Ends every login session of the user at once, the caller's own included when it is theirs.
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        post: operations["RevokeAllSessionsForUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/tokens/{token_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an access token
         * @description An access token's record, without the secret.
         *
         *     Permissions: read_user_access_token, and for another user's token also edit_other_users
         */
        get: operations["GetUserAccessToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/tokens/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke an access token
         * @description Deletes the token: it stops working at once and can never work again, whatever later changes to
         *     EnableUserAccessTokens.
         *
         *     Permissions: revoke_user_access_token, and for another user's token also edit_other_users
         */
        post: operations["RevokeUserAccessToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/tokens/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable an access token
         * @description Keeps the token but stops it from working until it is enabled again.
         *
         *     Permissions: revoke_user_access_token, and for another user's token also edit_other_users
         */
        post: operations["DisableUserAccessToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/tokens/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable an access token
         * @description Lets a disabled token work again.
         *
         *     Permissions: create_user_access_token, and for another user's token also edit_other_users
         */
        post: operations["EnableUserAccessToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List teams
         * @description Returns a page of teams the caller may see: the open teams, or every team for a system admin. With `include_total_count=true` the page is wrapped in an object with the total count.
         *
         *     Permissions: an active session (manage_system to see every team)
         */
        get: operations["GetAllTeams"];
        put?: never;
        /**
         * Create a team
         * @description Creates a team and makes the caller its first member and team admin. The name must be unique and follow
         *     Mattermost's team-name rules (checked by the server, 400 with field-specific ids).
         *
         *     Permissions: create_team
         */
        post: operations["CreateTeam"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/name/{team_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a team by name
         * @description Returns the team with this URL name. An invite-only team the caller is not on is answered exactly as a team
         *     that does not exist (404), so names cannot be probed.
         *
         *     Permissions: view_team (members, and anyone for an open team)
         */
        get: operations["GetTeamByName"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a team
         * @description Returns one team. `email` and `invite_id` are blank unless the caller may manage the team.
         *
         *     Permissions: view_team (members, and anyone for an open team)
         */
        get: operations["GetTeam"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/patch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change some fields of a team
         * @description Updates only the fields present in the body and returns the team. `allow_open_invite` and `type` move
         *     together (true makes the team open, `O`; false invite-only, `I`), and closing a team gives it a new
         *     `invite_id`, so old invitations stop working. Other fields of the body (Client4 sends the whole team) are
         *     ignored. The team's members are told through an `update_team` event (with the team's email and invite id left
         *     out).
         *
         *     Permissions: manage_team
         */
        put: operations["PatchTeam"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a team's member counts
         * @description Counts the team's current members, all of them and those whose accounts are active.
         *
         *     Permissions: view_team
         */
        get: operations["GetTeamStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the members of a team
         * @description Returns a page of current memberships of the team.
         *
         *     Permissions: view_team
         */
        get: operations["GetTeamMembers"];
        put?: never;
        /**
         * Add a user to a team
         * @description Adds the user to the team, or returns the existing membership unchanged if they are already a member. A user
         *     joining an open team needs no further permission; adding someone else, or joining an invite-only team,
         *     requires add_user_to_team. When the team has `allowed_domains`, the user's email must be in one of them (bots are
         *     exempt; system admins are not), else `400 api.team.join_user_to_team.allowed_domains.app_error`, as in Mattermost;
         *     this is checked before the existing membership.
         *
         *     Permissions: add_user_to_team, or the user themselves for an open team
         */
        post: operations["AddTeamMember"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/members/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a user from a team
         * @description Removes the user from the team (`me`: leaving it), and from every channel of the team, archived ones included;
         *     direct channels are kept. The membership is kept as a removed one (its `delete_at` set, its roles cleared), so
         *     joining again starts as a plain member. A user who is not a member is 400
         *     (`api.team.remove_user_from_team.missing.app_error`). The team's remaining members and the user are told through
         *     `leave_team` events; the channels they leave send no `user_removed`, as in Mattermost.
         *
         *     Permissions: none to leave a team oneself; remove_user_from_team to remove someone else
         */
        delete: operations["RemoveTeamMember"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/members/{user_id}/roles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a team member's roles
         * @description Sets the member's team roles from a space-separated list: `team_user` and `team_admin` (Parley's team scheme);
         *     the member's `scheme_user` and `scheme_admin` follow, and `roles` lists them. A team admin may then manage the
         *     team (PatchTeam, RegenerateTeamInviteId, its members, channels and their roles, webhooks) without being a
         *     system admin. The member gets `memberrole_updated` with the membership.
         *
         *     A list with a name that is not a role name (lower-case letters, digits and `_`, at most 64), or `system_admin`
         *     alone, is 400 `api.context.invalid_param.app_error`; a role Parley does not have is 400
         *     `app.role.get_by_name.app_error`; a role of another scope (`system_user`, `channel_admin`, ...) is 400
         *     `api.channel.update_team_member_roles.scheme_role.app_error`; `team_guest` is 400
         *     `api.channel.update_team_member_roles.changing_guest_role.app_error` (guests do not exist here). A user who is
         *     not a member of the team is 404 `app.team.get_member.missing.app_error`.
         *
         *     Permissions: manage_team_roles (team admins and system admins)
         */
        put: operations["UpdateTeamMemberRoles"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/regenerate_invite_id": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Give a team a new invite id
         * @description Replaces the team's invite id with a new random one: links with the old one stop working (sign-up with `iid`,
         *     AddTeamMemberFromInvite and GetTeamInviteInfo answer 404 for it). Answers the team with its new `invite_id`; the
         *     team's members get `update_team` (without the invite id, which only those who may invite see).
         *
         *     Permissions: manage_team (team admins and system admins)
         */
        post: operations["RegenerateTeamInviteId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/members/invite": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Join a team through its invite link
         * @description Adds the caller to the team whose invite id is given (the team's invite link), whether the team is open or
         *     invite-only, and to its town-square and off-topic, as AddTeamMember does (`added_to_team` to the caller,
         *     `user_added` in the default channels). Joining a team one is already on answers the membership as it is. The
         *     caller's e-mail must be in the team's `allowed_domains` when it has any (400
         *     `api.team.join_user_to_team.allowed_domains.app_error`). An unknown or regenerated invite id, or one of an
         *     archived team, is 404 `app.team.get_by_invite_id.finding.app_error`. Parley sends no e-mail invitations, so a
         *     `token` (an e-mail invitation's) is never valid: 400 `api.user.create_user.signup_link_invalid.app_error`.
         *     Neither parameter: 400 `api.team.add_user_to_team.missing_parameter.app_error`.
         *
         *     Permissions: an active session (the invite id is the credential)
         */
        post: operations["AddTeamMemberFromInvite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/invite/{invite_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get what a team invite link leads to
         * @description The team a team invite link (`/signup_user_complete/?id=<invite_id>`) leads to: its id, name, display name and
         *     description, so a sign-up or join page can name the team before the person has an account or a session. The
         *     invite id is the secret of the link: a team's managers can regenerate it (RegenerateTeamInviteId), and closing
         *     an open team (PatchTeam with `allow_open_invite: false`) regenerates it too; an old or unknown invite id, or
         *     one of an archived team, is 404 `app.team.get_by_invite_id.finding.app_error`.
         *
         *     Mattermost refuses this for a team whose `type` is not `O` (403 `api.team.get_invite_info.not_open_team`).
         *     Parley keeps `type` and `allow_open_invite` in step (an invite-only team is `I`), so that rule would refuse the
         *     link of every invite-only team, the teams it is meant for; here every team's link answers.
         *
         *     Permissions: none (the invite id is the credential)
         */
        get: operations["GetTeamInviteInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the teams of a user
         * @description Returns every active team the user is a member of; `me` means the caller.
         *
         *     Permissions: the user themselves, or manage_system
         */
        get: operations["GetTeamsForUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's team memberships
         * @description Returns every team membership of the user, in all teams, ordered by team id: current ones and, as Mattermost
         *     returns them, those the user has left (with their `delete_at`), at most 10000. `me` means the caller.
         *
         *     Permissions: the user themselves, or read_other_users_teams (system admins)
         */
        get: operations["GetTeamMembersForUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/unread": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a user's unread counts in every team
         * @description One entry per team in which the user belongs to a channel that is not archived, in no particular order (what a
         *     client's team sidebar shows). Direct channels belong to no team and are not counted. `me` means the caller.
         *
         *     Permissions: the user themselves, or manage_system
         */
        get: operations["GetTeamsUnreadForUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/unread": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a user's unread counts in a team
         * @description The user's unread posts and mentions in the team's channels they belong to (archived channels and direct
         *     channels are not counted). `me` means the caller.
         *
         *     Permissions: the user themselves, or edit_other_users; and view_team
         */
        get: operations["GetTeamUnread"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a public or private channel
         * @description Creates a channel in a team and makes the caller its first member and channel admin. The name must be unique
         *     in the team and follow Mattermost's channel-name rules (checked by the server, 400 with field-specific ids).
         *
         *     Permissions: create_public_channel (type O) or create_private_channel (type P) in the team
         */
        post: operations["CreateChannel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/direct": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get or create the direct channel between two users
         * @description Returns the direct-message channel between the two users, creating it (with both as members) if it does not
         *     exist yet. The two ids may be equal, which gives the user's channel with themselves.
         *
         *     Permissions: create_direct_channel, and the caller must be one of the two users (manage_system bypasses both)
         */
        post: operations["CreateDirectChannel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/{channel_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a channel
         * @description Returns one channel.
         *
         *     Permissions: read_channel (members of the channel; any team member for a public channel)
         */
        get: operations["GetChannel"];
        /**
         * Update a channel
         * @description Replaces the editable fields of a channel with those of the body, which must carry the channel's `id` (a
         *     different id is 400). As in Mattermost, `header` and `purpose` are always taken from the body (absent means
         *     empty), `display_name` and `name` only when not empty; everything else in the body is ignored. A different
         *     `type` is 400 (`api.channel.update_channel.typechange.app_error`); an archived channel cannot be updated
         *     (400 `api.channel.update_channel.deleted.app_error`); `town-square` cannot be renamed
         *     (400 `api.channel.update_channel.tried.app_error`); a name taken in the team is 400
         *     (`store.sql_channel.update.exists.app_error`). In a direct channel only the header may change, by one of its
         *     members. The channel's members are told through a `channel_updated` event.
         *
         *     Permissions: manage_public_channel_properties (public) or manage_private_channel_properties (private); being a
         *     member for a direct channel
         */
        put: operations["UpdateChannel"];
        post?: never;
        /**
         * Archive a channel
         * @description Archives a public or private channel: it keeps its posts and members but takes no more posts, and its incoming
         *     webhooks are deleted (as in Mattermost). Direct channels cannot be archived (400
         *     `api.channel.delete_channel.type.invalid`), nor can `town-square` (400
         *     `api.channel.delete_channel.cannot.app_error`); archiving an archived channel is 400
         *     (`api.channel.delete_channel.deleted.app_error`). Permanent deletion (`permanent=true`) is not enabled on this
         *     server: 401 `api.user.delete_channel.not_enabled.app_error`. A `channel_deleted` event goes to the team's members
         *     for a public channel, to the channel's members for a private one.
         *
         *     Permissions: delete_public_channel (public) or delete_private_channel (private)
         */
        delete: operations["DeleteChannel"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/{channel_id}/patch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change some fields of a channel
         * @description Updates only the fields present in the body and returns the channel. A body with none of them is 400
         *     (`api.channel.patch_update_channel.no_changes.app_error`). `town-square` cannot be renamed (400
         *     `api.channel.update_channel.tried.app_error`); a name taken in the team is 400
         *     (`store.sql_channel.update.exists.app_error`); an archived channel cannot be changed (400
         *     `api.channel.update_channel.deleted.app_error`). In a direct channel only the header may change (400
         *     `api.channel.patch_update_channel.update_direct_or_group_messages_not_allowed.app_error`), by one of its members
         *     (403 `api.channel.patch_update_channel.forbidden.app_error` otherwise). The channel's members are told through
         *     a `channel_updated` event.
         *
         *     Permissions: manage_public_channel_properties (public) or manage_private_channel_properties (private); being a
         *     member for a direct channel
         */
        put: operations["PatchChannel"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/{channel_id}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Unarchive a channel
         * @description Restores an archived channel, which takes posts again (its deleted webhooks stay deleted). A channel that is not
         *     archived is 400 (`api.channel.restore_channel.restored.app_error`). A `channel_restored` event goes to the
         *     team's members for a public channel, to the channel's members for a private one.
         *
         *     Permissions: manage_team on the channel's team
         */
        post: operations["RestoreChannel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/{channel_id}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a channel's statistics
         * @description Counts the channel's active members, its guests (always 0), its pinned posts and its files.
         *
         *     Permissions: read_channel
         */
        get: operations["GetChannelStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/{channel_id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the members of a channel
         * @description Returns a page of the channel's memberships.
         *
         *     Permissions: read_channel
         */
        get: operations["GetChannelMembers"];
        put?: never;
        /**
         * Add users to a channel
         * @description Adds one user (`user_id`) or several (`user_ids`, 1 to 1000) to the channel. Exactly one of the two must be
         *     given; the server checks this (400). Users must already be members of the channel's team. Adding an existing
         *     member returns the existing membership. The response is one ChannelMember for `user_id` and an array for
         *     `user_ids`.
         *
         *     Permissions: manage_public_channel_members (public) or manage_private_channel_members (private); joining a
         *     public channel oneself needs only join_public_channels
         */
        post: operations["AddChannelMember"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/{channel_id}/members/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one membership of a channel
         * @description Returns the user's membership of the channel, with their read state; `me` means the caller. 404 if the user
         *     is not a member.
         *
         *     Permissions: read_channel
         */
        get: operations["GetChannelMember"];
        put?: never;
        post?: never;
        /**
         * Remove a user from a channel
         * @description Removes the user from the channel; `me` means the caller (leaving). Only public and private channels
         *     allow this.
         *
         *     Permissions: manage_public_channel_members (public) or manage_private_channel_members (private); none to
         *     leave a channel oneself
         */
        delete: operations["RemoveUserFromChannel"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/{channel_id}/members/{user_id}/roles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a member's channel roles
         * @description Sets the member's roles in the channel: `channel_user`, or `channel_user channel_admin` to make them a channel
         *     admin. Roles must include `channel_user` (400 `api.channel.update_channel_member_roles.unset_user_scheme.app_error`);
         *     other role names are 400 (`api.channel.update_channel_member_roles.scheme_role.app_error` for a role of
         *     another scope, `api.context.invalid_param.app_error` for unknown names); `channel_guest` is 400 (there are no
         *     guests). A user who is not a member is 404 (`app.channel.get_member.missing.app_error`). The member is told
         *     through a `channel_member_updated` event.
         *
         *     Permissions: manage_channel_roles (channel admins, team admins)
         */
        put: operations["UpdateChannelRoles"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/{channel_id}/members/{user_id}/notify_props": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a member's notification settings for a channel
         * @description Changes the given keys of the member's channel `notify_props` and keeps the others: `desktop` and `push`
         *     (`default`, `all`, `mention`, `none`), `email` (`default`, `true`, `false`), `mark_unread` (`all`, or `mention`
         *     to mute the channel), `ignore_channel_mentions` (`default`, `on`, `off`), `channel_auto_follow_threads` (`on`,
         *     `off`), and `desktop_threads`, `push_threads`, `desktop_sound`, `desktop_notification_sound` (at most 20
         *     characters). Other keys (Client4 sends `channel_id` and `user_id` along) are ignored. A value outside its set is 400
         *     with Mattermost's id (`model.channel_member.is_valid.notify_level.app_error` for desktop,
         *     `push_level`, `email_value`, `unread_level`, `ignore_channel_mentions_value`,
         *     `channel_auto_follow_threads_value`, `notify_props` for the others); a user who is not a member is 404
         *     (`app.channel.get_member.missing.app_error`). The settings are read back in the channel member (GetChannelMember,
         *     GetChannelMembersForUser) and the member's sockets get a `channel_member_updated` event. "default" defers to the
         *     user's own `notify_props`; a muted channel still counts mentions but raises no desktop notification or email.
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        put: operations["UpdateChannelNotifyProps"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/members/{user_id}/view": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark a channel as viewed
         * @description Records that the user has read the channel up to now: last_viewed_at becomes the current time, the message
         *     counts catch up and the mention counts return to 0. An empty `channel_id` means that no channel has focus
         *     any more; then only `prev_channel_id` (if given) is marked. `me` means the caller.
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        post: operations["ViewChannel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the public channels of a team
         * @description Returns a page of the team's active public channels, ordered by display name.
         *
         *     Permissions: list_team_channels (team members)
         */
        get: operations["GetPublicChannelsForTeam"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/channels/deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a team's archived channels
         * @description Returns a page of the team's archived channels the caller may read, as Mattermost lists them for the web app's
         *     "Archived channels" view: every archived public channel, and the archived private channels the caller is a
         *     member of, ordered by display name. Live channels and direct or group channels are never listed.
         *
         *     Mattermost asks for no permission here (the answer holds only channels its caller could browse or belonged to);
         *     here the caller must also be on the team, as for GetPublicChannelsForTeam.
         *
         *     Permissions: view_team (team members)
         */
        get: operations["GetDeletedChannelsForTeam"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/channels/autocomplete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Find a team's channels by name, for autocompletion
         * @description The team's channels the caller may see (its public channels and the private ones the caller belongs to) whose
         *     name, display name or purpose contains every word of `name` (letter case ignored; as Mattermost matches them:
         *     the whole term anywhere in one of those fields, or each word at the start of a word), at most 50, ordered by
         *     display name. An empty `name` lists the first 50. Archived channels are left out.
         *
         *     Permissions: list_team_channels (team members)
         */
        get: operations["AutocompleteChannelsForTeam"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/channels/search_autocomplete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Find the caller's channels by name, for the search box's `in:`
         * @description The channels the caller belongs to, for completing `in:` in the search box: their channels of the team (public
         *     and private) and their group channels whose name, display name or purpose contains every word of `name`
         *     (letter case ignored), at most 50; and their direct channels whose other member's username or nickname contains
         *     it, at most 50, each with `display_name` set to that username (as Mattermost answers). Sorted by display name,
         *     letter case ignored. An empty `name` lists them all (within the same bounds). Archived channels are left out.
         *
         *     Permissions: membership of the team (view_team); Mattermost asks for none, as the answer holds only the
         *     caller's own channels
         */
        get: operations["AutocompleteChannelsForTeamForSearch"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/channels/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search a team's public channels
         * @description The team's public channels whose name, display name or purpose contains every word of `term` (letter case
         *     ignored; as Mattermost matches them: the whole term anywhere in one of those fields, or each word at the start
         *     of a word), at most 100, ordered by display name. An empty or absent `term` lists the first 100. Archived
         *     channels are left out. The other fields of Mattermost's ChannelSearch body are accepted; this operation reads
         *     only `term`, as Mattermost's does.
         *
         *     A caller outside the team gets 404 `app.team.get_member.missing.app_error` (Mattermost's answer); a member
         *     without list_team_channels gets the public channels they belong to.
         *
         *     Permissions: list_team_channels (team members)
         */
        post: operations["SearchChannels"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/channels/name/{channel_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a channel by team and name
         * @description Returns the channel with this URL name in the team. Archived channels are found only with
         *     `include_deleted=true`. A private channel the caller cannot read is answered exactly as a channel that does not
         *     exist (404 `app.channel.get_by_name.missing.app_error`), so names cannot be probed; a public channel of a team the
         *     caller is not on is 403.
         *
         *     Permissions: read_channel (members of the channel; any team member for a public channel)
         */
        get: operations["GetChannelByName"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/name/{team_name}/channels/name/{channel_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a channel by team name and channel name
         * @description Returns the channel with this URL name in the team with this URL name (how web links name a channel). Archived
         *     channels are found only with `include_deleted=true`. A team that does not exist, or an invite-only team the
         *     caller is not on, is 404 `app.team.get_by_name.missing.app_error`; a private channel the caller cannot read is
         *     answered exactly as a channel that does not exist (404 `app.channel.get_by_name.missing.app_error`), so names
         *     cannot be probed; a public channel of a team the caller is not on is 403.
         *
         *     Permissions: read_channel (members of the channel; any team member for a public channel; team admins for a
         *     private one)
         */
        get: operations["GetChannelByNameForTeamName"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's channels in a team
         * @description Returns every channel of the team the user is a member of, plus the user's direct channels; `me` means the
         *     caller.
         *
         *     Permissions: the user themselves or edit_other_users, and view_team
         */
        get: operations["GetChannelsForTeamForUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/channels/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a user's memberships of a team's channels
         * @description Returns the user's memberships, with their read state, of every channel of the team they belong to (archived
         *     ones included) and of their direct channels, in no particular order: what a client needs for its unread
         *     markers. `me` means the caller.
         *
         *     Permissions: view_team; manage_system for another user's memberships
         */
        get: operations["GetChannelMembersForUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's channels in all teams
         * @description Returns every channel the user is a member of, in all their teams, with their direct channels, ordered by
         *     channel id, at most 10000 (Mattermost streams them all; the web app loads them with `GET
         *     /api/v4/users/me/channels`). A user in no channel gets an empty list. `me` means the caller.
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        get: operations["GetChannelsForUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/channel_members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's channel memberships in all teams
         * @description Returns the user's channel memberships, in all their teams and their direct channels, ordered by channel id,
         *     each with its channel's team (`team_display_name`, `team_name`, `team_update_at`; empty and 0 for a direct
         *     channel). Paged by `page` and `per_page`; `page=-1` returns all of them in one answer (at most 10000), as the
         *     web app asks for them (`page=-1&per_page=60`, where per_page does not matter). Another caller than the user sees
         *     the memberships with the read state and notification settings blanked (see ChannelMember). `me` means the
         *     caller.
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        get: operations["GetChannelMembersWithTeamDataForUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/roles/{role_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a role by its id
         * @description Returns the role with the id (a role's id is the same on every Parley server); none has it: 404
         *     `app.role.get.app_error`.
         *
         *     Permissions: any logged-in user
         */
        get: operations["GetRole"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/roles/name/{role_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a role by its name
         * @description Returns the role with the name; Parley has none of that name: 404 `app.role.get_by_name.app_error`. A name that
         *     is not 1 to 64 of `a-z`, `0-9` and `_` is 400 `api.context.invalid_param.app_error`.
         *
         *     Permissions: any logged-in user
         */
        get: operations["GetRoleByName"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/roles/names": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get roles by their names
         * @description Returns the roles with the given names, sorted by name; a name Parley has no role for is simply absent from the
         *     answer (which may be empty). Names are de-duplicated and blank ones dropped, as Mattermost does; an empty list
         *     is 400 `api.context.invalid_param.app_error`, more than 100 different names 400
         *     `api.roles.get_multiple_by_name_too_many.request_error`, and a name that is not 1 to 64 of `a-z`, `0-9` and `_`
         *     400 `api.context.invalid_param.app_error`. A null in the list counts as a blank name.
         *
         *     Parley's roles: `system_user`, `system_admin`, `system_user_access_token`, `team_user`, `team_admin`,
         *     `channel_user`, `channel_admin`. Each lists the permissions Parley grants with it (see the README).
         *
         *     Permissions: any logged-in user
         */
        post: operations["GetRolesByNames"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/channels/categories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's sidebar categories on a team
         * @description Returns the user's sidebar categories on the team with their channels, and their order. The three default
         *     categories (favorites, channels, direct_messages; ids `{type}_{user_id}_{team_id}`, sort orders 0, 10 and 20,
         *     direct_messages sorted `recent`) are created the first time they are needed; favorites then starts with the
         *     channels the user marked `favorite_channel` in their preferences. A channel the user has not placed anywhere is
         *     in channels (public and private) or direct_messages (direct and group messages, on every team).
         *
         *     Permissions: the user themselves or edit_other_users, and view_team; the user must be a member of the team
         *     (else 404 `app.team.get_member.missing.app_error`)
         */
        get: operations["GetSidebarCategoriesForTeamForUser"];
        /**
         * Update several of a user's sidebar categories
         * @description Replaces the settings and channels of each category of the body (each must be one of the user's categories on
         *     the team, named once, else 400 `api.context.invalid_param.app_error`), in one transaction; a channel may be
         *     listed in one category of the body only. A move names both categories, as the clients send it (the destination
         *     with the channel, the source without); a channel listed while it sits in a category the body does not name stays
         *     where it is (Mattermost would list it in both), so every channel is in exactly one category. A channel taken out
         *     of every category goes back to channels or direct_messages.
         *     Channels moved into favorites are marked `favorite_channel` in the user's preferences, and channels moved
         *     out of it unmarked, as Mattermost keeps the two in step. Muting or unmuting a category mutes or unmutes its
         *     channels for the user. The user's own sockets get sidebar_category_updated with the categories that changed.
         *
         *     Permissions: the user themselves or edit_other_users, and view_team; the user must be a member of the team
         *     (else 404 `app.team.get_member.missing.app_error`)
         */
        put: operations["UpdateSidebarCategoriesForTeamForUser"];
        /**
         * Create a custom sidebar category
         * @description Creates a custom category with the body's display_name, sorting, muted and channel_ids (channels listed leave
         *     the category they were in). It is placed right after favorites when favorites comes first, else first, and the
         *     categories are renumbered 0, 10, 20, ...; the answer carries its sort_order. The body's user_id and team_id
         *     must be the path's (else 400 `api.context.invalid_param.app_error`). A user has at most 100 custom
         *     categories per team (else 400 `app.channel.sidebar_categories.app_error`). The user's own sockets get
         *     sidebar_category_created.
         *
         *     Permissions: the user themselves or edit_other_users, and view_team; the user must be a member of the team
         *     (else 404 `app.team.get_member.missing.app_error`)
         */
        post: operations["CreateSidebarCategoryForTeamForUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/channels/categories/order": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the order of a user's sidebar categories on a team
         * @description Returns the ids of the user's categories on the team, in the sidebar's order (the default categories are
         *     created if they do not exist yet).
         *
         *     Permissions: the user themselves or edit_other_users, and view_team; the user must be a member of the team
         *     (else 404 `app.team.get_member.missing.app_error`)
         */
        get: operations["GetSidebarCategoryOrderForTeamForUser"];
        /**
         * Set the order of a user's sidebar categories on a team
         * @description Sets the order: the body lists every one of the user's categories on the team exactly once (an id that is not
         *     one of them is 400 `api.context.invalid_param.app_error`; a list that leaves one out or repeats one is 400
         *     `app.channel.sidebar_categories.app_error`); they are numbered 0, 10, 20, ... in that order. Answers the
         *     order. The user's own sockets get sidebar_category_order_updated.
         *
         *     Permissions: the user themselves or edit_other_users, and view_team; the user must be a member of the team
         *     (else 404 `app.team.get_member.missing.app_error`)
         */
        put: operations["UpdateSidebarCategoryOrderForTeamForUser"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/channels/categories/{category_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one of a user's sidebar categories
         * @description Returns the category with its channels.
         *
         *     Permissions: the user themselves (the category must be theirs, on that team: else 403) or edit_other_users
         *     (another user's category, or one of another team, through this path is 404
         *     `app.channel.sidebar_categories.app_error`), and view_team; the user must be a member of the team (else 404
         *     `app.team.get_member.missing.app_error`)
         */
        get: operations["GetSidebarCategoryForTeamForUser"];
        /**
         * Update one of a user's sidebar categories
         * @description UpdateSidebarCategoriesForTeamForUser for the one category of the path (the body's id is ignored; its user_id
         *     and team_id must be the path's, else 400 `api.context.invalid_param.app_error`). Answers the category as
         *     stored now.
         *
         *     Permissions: the user themselves (the category must be theirs, on that team: else 403) or edit_other_users
         *     (another user's category, or one of another team, through this path is 404
         *     `app.channel.sidebar_categories.app_error`), and view_team; the user must be a member of the team (else 404
         *     `app.team.get_member.missing.app_error`)
         */
        put: operations["UpdateSidebarCategoryForTeamForUser"];
        post?: never;
        /**
         * Delete a custom sidebar category
         * @description Deletes a custom category; its channels go back to channels or direct_messages. The default categories cannot
         *     be deleted (400 `app.channel.sidebar_categories.app_error`). The user's own sockets get
         *     sidebar_category_deleted.
         *
         *     Permissions: the user themselves (the category must be theirs, on that team: else 403) or edit_other_users
         *     (another user's category, or one of another team, through this path is 404
         *     `app.channel.sidebar_categories.app_error`), and view_team; the user must be a member of the team (else 404
         *     `app.team.get_member.missing.app_error`)
         */
        delete: operations["RemoveSidebarCategoryForTeamForUser"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/posts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a post
         * @description Creates a post in a channel, or a reply when `root_id` names a root post of the same channel. The message may
         *     hold at most 16383 Unicode code points (checked by the server, 400). Mentions in the message update the mention
         *     counts of the channel's members.
         *
         *     Permissions: create_post in the channel
         */
        post: operations["CreatePost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/posts/{post_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a post
         * @description Returns one post. Deleted posts are found only with `include_deleted=true`, which needs manage_system.
         *
         *     Permissions: read_channel on the post's channel
         */
        get: operations["GetPost"];
        /**
         * Update a post
         * @description Replaces the editable part of a post with the body's, as Mattermost does: `message` (a change sets edit_at),
         *     `is_pinned` and `props` are taken from the body, an absent one counting as empty (so send the whole post, as
         *     Client4's updatePost does; PatchPost changes single fields). `file_ids` absent keeps the post's files. Server-set
         *     props (webhook identity) are kept whatever the body says; every other field of the body is ignored. The channel's
         *     members get a post_edited event.
         *
         *     `id` in the body must be the post's (400 otherwise). A post that does not exist or was deleted is 403, as in
         *     Mattermost. A system message is 400 `api.post.update_post.system_message.app_error`; a post in an archived channel
         *     400 `api.post.update_post.can_not_update_post_in_deleted.error`; props over 65536 bytes as JSON 400
         *     `model.post.is_valid.props.app_error`.
         *
         *     Permissions: edit_post in the post's channel, and edit_others_posts too for someone else's post
         */
        put: operations["UpdatePost"];
        post?: never;
        /**
         * Delete a post
         * @description Soft-deletes the post (delete_at is set). Deleting a root post also deletes its replies.
         *
         *     Permissions: delete_post for one's own post, delete_others_posts for someone else's
         */
        delete: operations["DeletePost"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/posts/{post_id}/patch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change some fields of a post
         * @description Updates only the fields present in the body and returns the post. Changing the message sets edit_at. Props are
         *     at most 65536 bytes as JSON (400 `model.post.is_valid.props.app_error`); a post in an archived channel is 400
         *     `api.post.patch_post.can_not_update_post_in_deleted.error`, as in Mattermost.
         *
         *     Permissions: edit_post for one's own post, edit_others_posts for someone else's
         */
        put: operations["PatchPost"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/posts/{post_id}/thread": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a thread
         * @description Returns the root post and its replies for any post of a thread. Unlike other endpoints this one uses camelCase
         *     query parameters. Without `perPage` the whole thread is returned; with it, the thread is paged from
         *     `fromPost`/`fromCreateAt` in `direction`.
         *
         *     With `skipFetchThreads=true` (and not `collapsedThreads`) only the post itself is returned, as Mattermost does.
         *     With `collapsedThreads=true` the root post carries its thread as collapsed-thread channel pages serve it
         *     (`reply_count`, `last_reply_at`, `participants`, `is_following` for the caller; whole users with
         *     `collapsedThreadsExtended=true`).
         *
         *     Permissions: read_channel on the post's channel
         */
        get: operations["GetPostThread"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/posts/{post_id}/pin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pin a post to its channel
         * @description Pins the post: it is listed by GetPinnedPosts. The post gets `is_pinned: true` (its edit_at does not change, its update_at does) and the channel's
         *     members a post_edited event. A system message is 400 `api.post.update_post.system_message.app_error`; a post in
         *     an archived channel 400 `api.post.patch_post.can_not_update_post_in_deleted.error`. A post that does not exist
         *     or was deleted is 403, as in Mattermost.
         *
         *     Permissions: read_channel on the post's channel (anyone who can read a post can pin it, as in Mattermost)
         */
        post: operations["PinPost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/posts/{post_id}/unpin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Unpin a post
         * @description Unpins the post: GetPinnedPosts no longer lists it. The post gets `is_pinned: false` (its edit_at does not change, its update_at does) and the channel's
         *     members a post_edited event. A system message is 400 `api.post.update_post.system_message.app_error`; a post in
         *     an archived channel 400 `api.post.patch_post.can_not_update_post_in_deleted.error`. A post that does not exist
         *     or was deleted is 403, as in Mattermost.
         *
         *     Permissions: read_channel on the post's channel (anyone who can read a post can unpin it, as in Mattermost)
         */
        post: operations["UnpinPost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/posts/{post_id}/actions/{action_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Click an interactive action of a post
         * @description A click on a button, or a choice in a menu, of the post's message attachments (Client4 `doPostActionWithCookie`).
         *     The server sends the action's integration Mattermost's request: `POST` of the JSON `{user_id, user_name,
         *     channel_id, channel_name, team_id, team_domain, post_id, trigger_id, type, data_source, context}` (the action's
         *     `context`; a select adds `context.selected_option` and its `data_source`), with ServiceSettings
         *     .OutgoingIntegrationRequestsTimeout and the address rule of every integration call
         *     (AllowedUntrustedInternalConnections). Parley signs it: `X-Parley-Timestamp` (Unix seconds) and
         *     `X-Parley-Signature: v1=<hex HMAC-SHA256 of "v1:" + timestamp + ":" + the raw body>`, keyed by the secret of the
         *     integration that made the post (an incoming webhook's `signing_secret`, an outgoing webhook's or a command's
         *     `token`); posts made through the REST API (users, bots) have none and their calls are unsigned. Every call is
         *     recorded in the delivery log (kind `action`).
         *
         *     An answer other than 200, or a body that is not JSON, is 400 `api.post.do_action.action_integration.app_error`
         *     (also when the integration cannot be reached or its address is refused). The answer may hold `update` (a post:
         *     its message, and its props when given, replace the post's; the server's own props, `is_pinned` and reactions are
         *     kept; the channel gets post_edited) and `ephemeral_text` (shown to the clicker only, as an ephemeral post in the
         *     post's thread; Slack links converted unless `skip_slack_parsing`).
         *
         *     Unknown action id: 404 `api.post.do_action.action_id.app_error`; a post that does not exist or was deleted: 404
         *     `app.post.get.app_error`; a value not among a static menu's options: 400. `cookie` is Mattermost's way to click
         *     actions of ephemeral posts; Parley's ephemeral posts carry no clickable actions, so a cookie for a post that is not
         *     stored is 400 `api.post.do_action.action_integration.app_error`.
         *
         *     Permissions: read_channel on the post's channel
         */
        post: operations["DoPostAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/posts/ids": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get several posts by id
         * @description Returns the posts with the given ids as an array, newest first. Posts in channels the caller may not read are
         *     left out, as are unknown ids; when none of the ids is a post at all the answer is 404 `app.post.get.app_error`.
         *     A deleted post is returned with its delete_at set and its content (message, props, files, metadata) emptied: a
         *     client learns that it is gone, not what it said. Ids are de-duplicated; at most 1000 (400
         *     `api.post.posts_by_ids.invalid_body.request_error`); none is 400.
         *
         *     Permissions: an active session; each post is returned only to who may read its channel
         */
        post: operations["GetPostsByIds"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/{channel_id}/pinned": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the pinned posts of a channel
         * @description Returns every pinned post of the channel that is not deleted, as a PostList whose `order` is oldest first (as
         *     Mattermost orders it; no paging). The
         *     answer carries an ETag; a matching `If-None-Match` gets 304.
         *
         *     Permissions: read_channel
         */
        get: operations["GetPinnedPosts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/reactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * React to a post
         * @description Adds the caller's reaction with an emoji to a post and returns it. Reacting again with the same emoji changes
         *     nothing but the reaction's update_at. A post holds at most ServiceSettings.UniqueEmojiReactionLimitPerPost (50)
         *     different emoji: a new one beyond that is 400 `app.reaction.save.save.too_many_reactions` (more users may still
         *     add the emoji already there). The post's update_at moves (so channel ETags and `since` readers see the change)
         *     and the channel's members get a reaction_added event. Reacting in an archived channel is 403
         *     `api.reaction.save.archived_channel.app_error`.
         *
         *     Emoji names are 1 to 64 ASCII letters, digits, `-`, `+` and `_` (400
         *     `api.reaction.save_reaction.invalid.app_error` when empty or longer, `model.reaction.is_valid.emoji_name.app_error`
         *     for other characters). Any such name is accepted: this server has no custom emoji to look names up in.
         *
         *     Permissions: add_reaction in the post's channel (its members have it); `user_id` must be the caller (else 403
         *     `api.reaction.save_reaction.user_id.app_error`)
         */
        post: operations["SaveReaction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/posts/{post_id}/reactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a post's reactions
         * @description Returns the post's reactions, oldest first (an empty array when it has none).
         *
         *     Permissions: read_channel on the post's channel (a post that does not exist is 403 too, except for system admins,
         *     who get 404)
         */
        get: operations["GetReactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/posts/{post_id}/reactions/{emoji_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a reaction
         * @description Removes a user's reaction with an emoji from a post. Removing a reaction that is not there is not an error (200,
         *     nothing changes, no event). Otherwise the post's update_at moves and the channel's members get a
         *     reaction_removed event. In an archived channel: 403 `api.reaction.delete.archived_channel.app_error`.
         *
         *     Permissions: remove_reaction in the post's channel (its members have it); removing another user's reaction also
         *     needs remove_others_reactions (system admins)
         */
        delete: operations["DeleteReaction"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/posts/ids/reactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * List the reactions of several posts
         * @description Returns an object with one key per requested post id, each holding that post's reactions, oldest first (an empty
         *     array when it has none).
         *
         *     Permissions: read_channel on every post's channel; one post the caller may not read (or one that does not exist,
         *     except for system admins) makes the whole request 403
         */
        post: operations["GetBulkReactions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/channels/{channel_id}/posts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the posts of a channel
         * @description Returns posts of the channel, newest first, in one of three modes:
         *
         *     - by page: `page` and `per_page`;
         *     - around a post: `before` or `after` a post id, with `page` and `per_page`;
         *     - by change time: `since` (epoch milliseconds) returns every post created, edited or deleted after that time
         *       (at most 1000); do not combine it with the other paging parameters. A deleted post comes with its delete_at
         *       set and its content (message, props, files, metadata) emptied: clients learn of the deletion, not what was
         *       deleted.
         *
         *     A page of large posts ends before `per_page` once its messages and props pass 2 MiB (at least one post per page);
         *     `prev_post_id` (`next_post_id` after an `after` anchor) then names the first post left out, so continue with
         *     `before` (or `after`) as the apps do: offset paging (`page` > 0) past such a page skips posts.
         *
         *     With `collapsedThreads=true` (what the apps send while collapsed reply threads are on) the channel is its root
         *     posts: pages, `before`/`after` and the cursors count roots only, replies are neither listed nor fetched
         *     (`skipFetchThreads` changes nothing), and `since` returns the roots changed after that time or whose threads had
         *     a reply since (newest first, at most 1000). Each root carries its thread: `reply_count` and `last_reply_at`,
         *     `participants` once it has had a reply (`{id}` each; whole sanitized users with `collapsedThreadsExtended=true`)
         *     and `is_following` for the caller where they have a thread membership (absent otherwise). The same byte budget
         *     applies.
         *
         *     Paged responses carry an ETag (one per set of parameters); a matching `If-None-Match` gets 304.
         *
         *     Permissions: read_channel
         */
        get: operations["GetPostsForChannel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/posts/flagged": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's saved posts
         * @description Returns the posts the user saved (preference `flagged_post`/<post id> = "true") that are not deleted, newest
         *     first, as a PostList, one page at a time. With `channel_id` only those of that channel; with `team_id` those of
         *     that team's channels and of direct and group channels. Posts in channels the caller may no longer read are left
         *     out of the page (as in Mattermost, after paging).
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        get: operations["GetFlaggedPostsForUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/posts/{post_id}/set_unread": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark a channel unread from a post on
         * @description What "Mark as Unread" on a post does in Mattermost's apps: the user's membership of the post's channel reads as
         *     last viewed just before the post was created (`last_viewed_at` = the post's `create_at` - 1), so the post and
         *     every later live post are unread (`msg_count` is the channel's total less them) and the mentions among them are
         *     counted again (in a direct or group channel every post by someone else is one). The user's connections get
         *     `post_unread` with the new counts. The body's `collapsed_threads_supported` is accepted and not used (the counts
         *     are the channel's, replies included).
         *
         *     A post that does not exist or cannot be read is 403, as in Mattermost; a deleted one 404 `app.post.get.app_error`;
         *     a user who is not a member of the post's channel 404 `app.channel.get_member.missing.app_error`.
         *
         *     Permissions: the user themselves (or edit_other_users), and read_channel on the post's channel
         */
        post: operations["SetPostUnread"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/channels/{channel_id}/posts/unread": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the posts around a user's first unread post in a channel
         * @description What the apps load first when a channel is opened. The user's first unread post is the oldest live post created
         *     after their membership's `last_viewed_at`; the answer holds it, up to `limit_before` posts older than it and up
         *     to `limit_after` - 1 posts newer than it, newest first in `order`. `next_post_id` names the next newer post past
         *     the answer and `prev_post_id` the next older one ("" at either end of the channel), so the apps continue with
         *     GetPostsForChannel's `after` and `before`; `has_next` is true when older posts remain (`prev_post_id` set).
         *
         *     When the user has never viewed the channel (`last_viewed_at` 0) or nothing is unread, the answer is the channel's
         *     latest `limit_before` posts exactly as GetPostsForChannel's page 0 with `per_page` = `limit_before` (with its
         *     ETag; a matching `If-None-Match` gets 304).
         *
         *     Replies come with their root posts (outside `order`) unless `skipFetchThreads` is true. As for
         *     GetPostsForChannel, each side of the unread post ends early once its messages and props pass 1 MiB (2 MiB for
         *     the whole answer; at least one post per side); `next_post_id`/`prev_post_id` then name the first post left out.
         *
         *     With `collapsedThreads=true` everything counts root posts only, as in GetPostsForChannel: the first unread post
         *     is the oldest live root created after `last_viewed_at`, the posts around it and the cursors are roots, and each
         *     root carries its thread for the path's user (`reply_count`, `last_reply_at`, `participants`, `is_following`;
         *     whole users with `collapsedThreadsExtended=true`). Mattermost also adds the replies of the first unread root to
         *     `posts`; they are left out here (a thread may be long; the apps show no replies in a channel in that mode).
         *
         *     A user who is not a member of the channel (it may still be readable: a public channel of their team) gets 404
         *     `app.channel.get_member.missing.app_error`.
         *
         *     Permissions: the user themselves (or edit_other_users), and read_channel on the channel
         */
        get: operations["GetPostsAroundLastUnread"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/preferences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's preferences
         * @description Returns every preference of the user, in no particular order (an empty array when there are none).
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        get: operations["GetPreferences"];
        /**
         * Save a user's preferences
         * @description Stores each preference of the body (1 to 100 of them, else 400 `api.context.invalid_param.app_error`), replacing
         *     the value of one already stored under the same category and name, all in one transaction. Every preference's
         *     user_id must be the path's user (else 403 `api.preference.update_preferences.set.app_error`). Each is checked as
         *     Mattermost checks it (400 `model.preference.is_valid.{id,category,name,value,theme}.app_error`): a category of 1
         *     to 32 bytes, a name of at most 32 bytes, a value of at most 20000 characters, and for the `theme` category a
         *     JSON object. Saving a post (`flagged_post`, name = the post id) needs a post that exists (else 400
         *     `api.context.invalid_param.app_error`) in a channel the caller may read (else 403). The user's own sockets get a
         *     preferences_changed event.
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        put: operations["UpdatePreferences"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/preferences/delete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delete some of a user's preferences
         * @description Deletes the preferences named by the body's category and name (1 to 100 of them, else 400
         *     `api.context.invalid_param.app_error`; values are ignored), in one transaction. One that is not stored is not an
         *     error. Every preference's user_id must be the path's user (else 403
         *     `api.preference.delete_preferences.delete.app_error`). The user's own sockets get a preferences_deleted event.
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        post: operations["DeletePreferences"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/preferences/{category}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's preferences in one category
         * @description Returns the user's preferences in the category; none is 404 `api.preference.preferences_category.get.app_error`,
         *     as in Mattermost.
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        get: operations["GetPreferencesByCategory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/preferences/{category}/name/{preference_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one of a user's preferences
         * @description Returns the user's preference with the category and name; none is 400 `app.preference.get.app_error` (as Mattermost
         *     answers it).
         *
         *     Permissions: the user themselves, or edit_other_users
         */
        get: operations["GetPreferencesByCategoryByName"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/threads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the threads a user follows in a team
         * @description The threads the user follows in the team's channels and in their direct and group channels, in channels they
         *     are still a member of, newest reply first, `per_page` of them (default 60, at most 200; 0 reads as 30, as in
         *     Mattermost), with the totals over all of them. A thread exists once its root post has a reply.
         *
         *     - `before` / `after`: a thread id; the page holds the threads whose newest reply is older (`before`) or
         *       newer (`after`, then oldest first) than that thread's. Not both (400 `api.getThreadsForUser.bad_params`).
         *     - `unread`: only threads with replies newer than the user's last view (`total` then counts those).
         *     - `deleted`: threads whose root post was deleted too (left out by default).
         *     - `since`: only threads with a reply, or a change of the user's membership (follow, read), at or after this
         *       time (epoch milliseconds).
         *     - `extended`: participants as whole (sanitized) users instead of `{id}`.
         *     - `totalsOnly` (no threads) and `threadsOnly` (totals 0) are exclusive (400
         *       `api.getThreadsForUser.bad_only_params`).
         *
         *     Permissions: the user themselves (or edit_other_users), and view_team (a member of the team, or a system admin)
         */
        get: operations["GetUserThreads"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/threads/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Mark all of a user's threads in a team read
         * @description Every thread the user has a membership of in the team (and in direct and group channels) is read as of now: no
         *     unread replies, no unread mentions. The user's own sockets get a thread_read_changed event without data.
         *
         *     Permissions: the user themselves (or edit_other_users), and view_team
         */
        put: operations["UpdateThreadsReadForUser"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/threads/{thread_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a thread a user follows
         * @description The thread as the user follows it. 404 `app.user.get_thread_membership_for_user.not_found` when the user never
         *     followed it, `app.user.get_threads_for_user.not_found` when they stopped following it or it has no reply yet.
         *
         *     Permissions: the user themselves (or edit_other_users), and read_channel on the thread's channel (403 also when
         *     the post does not exist)
         */
        get: operations["GetUserThread"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/threads/{thread_id}/following": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Follow a thread
         * @description The user follows the thread (a membership is made if there was none) and has read it as of now. The user's own
         *     sockets get thread_follow_changed with `state` true.
         *
         *     Permissions: the user themselves (or edit_other_users), and read_channel on the thread's channel
         */
        put: operations["StartFollowingThread"];
        post?: never;
        /**
         * Stop following a thread
         * @description The user stops following the thread: it leaves their threads list and new replies no longer make them follow it
         *     again, unless a reply mentions them (or they mark it read or follow it). The user's own sockets get
         *     thread_follow_changed with `state` false.
         *
         *     Permissions: the user themselves (or edit_other_users), and read_channel on the thread's channel
         */
        delete: operations["StopFollowingThread"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/threads/{thread_id}/read/{timestamp}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Mark a thread read up to a time
         * @description The user has read the thread up to `timestamp` (epoch milliseconds; earlier than the newest reply leaves the
         *     later replies unread) and follows it. Unread mentions are counted again over the replies after `timestamp`.
         *     Answers the thread as GetUserThread does; the user's own sockets get thread_read_changed.
         *
         *     Permissions: the user themselves (or edit_other_users), and read_channel on the thread's channel
         */
        put: operations["UpdateThreadReadForUser"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/teams/{team_id}/threads/{thread_id}/set_unread/{post_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark a thread unread from a post on
         * @description As UpdateThreadReadForUser with the time just before the post was created: the post and every later reply are
         *     unread. The post must be the thread's root or one of its replies (else 400
         *     `app.user.update_thread_read_for_user_by_post.app_error`); an unknown post is 404 `app.post.get.app_error`.
         *
         *     Permissions: the user themselves (or edit_other_users), and read_channel on the thread's channel
         */
        post: operations["SetThreadUnreadByPostId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload files
         * @description Uploads one or more files to a channel, to be attached to a post afterwards (CreatePost's `file_ids`). The body
         *     is `multipart/form-data`: a `channel_id` field (or the `channel_id` query parameter), optionally one `client_ids`
         *     field per file, then the file parts (any field name; browsers and Client4 use `files`). The fields must come
         *     before the files, as Mattermost's apps send them. At most 10 files per request, each at most
         *     FileSettings.MaxFileSize bytes (default 100 MB; 413 `api.file.upload_file.too_large_detailed.app_error` past it).
         *     The body is streamed to storage, never held in memory, and is not subject to
         *     ServiceSettings.MaximumPayloadSizeBytes. An upload that fails for any reason stores nothing: no file, no record.
         *
         *     The files count against the uploader's FileSettings.MaxUserStorageBytes (default 10 GiB; 413
         *     `api.file.upload_file.storage_quota.app_error` past it, before any byte is stored when nothing is left). An
         *     archived channel takes no uploads (400 `api.file.upload_file.can_not_upload_to_deleted.error`, as a post there is
         *     refused). An upload no post attaches within FileSettings.UnattachedRetentionHours (default a week) is removed.
         *
         *     Images (JPEG, PNG, GIF, WebP, TIFF) get a thumbnail (120 wide if wider than high, else 100 high) and a preview
         *     (at most 1920 wide), made during the upload, and their width, height and a 16×16 mini preview in the FileInfo.
         *     An image of more than 33177600 pixels (7680×4320) is refused (400
         *     `api.file.upload_file.large_image_detailed.app_error`).
         *
         *     Permissions: upload_file in the channel (members who may post there)
         */
        post: operations["UploadFile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/files/{file_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a file
         * @description The file's bytes, with its media type (types a browser would run as a page or script are sent as
         *     `text/plain`), `Content-Disposition` and `Cache-Control: private, max-age=86400`. A single byte range
         *     (`Range: bytes=a-b`) is answered 206. A file of a deleted post is 404 (`app.file_info.get.app_error`).
         *
         *     Permissions: the uploader, or read_channel on the channel the file was uploaded to (403 otherwise)
         */
        get: operations["GetFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/files/{file_id}/info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a file's metadata
         * @description The FileInfo of a file (name, size, media type, image dimensions, the post it is attached to), with
         *     `Cache-Control: max-age=2592000, private`. A file of a deleted post is 404 (`app.file_info.get.app_error`).
         *
         *     Permissions: the uploader, or read_channel on the channel the file was uploaded to (403 otherwise)
         */
        get: operations["GetFileInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/files/{file_id}/thumbnail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a file's thumbnail
         * @description The thumbnail of an image: 120 pixels wide if the image is wider than high, else 100 pixels high (JPEG, or
         *     PNG for a PNG image). A file that is not an image has none: 400
         *     `api.file.get_file_thumbnail.no_thumbnail.app_error`, as in Mattermost.
         *
         *     Permissions: the uploader, or read_channel on the channel the file was uploaded to (403 otherwise)
         */
        get: operations["GetFileThumbnail"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/files/{file_id}/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a file's preview
         * @description The preview of an image: the image itself up to 1920 pixels wide, scaled down to that width when wider (JPEG,
         *     or PNG for a PNG image). A file that is not an image has none: 400
         *     `api.file.get_file_preview.no_preview.app_error`, as in Mattermost.
         *
         *     Permissions: the uploader, or read_channel on the channel the file was uploaded to (403 otherwise)
         */
        get: operations["GetFilePreview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/posts/{post_id}/files/info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the files of a post
         * @description The FileInfos of the files attached to a post, in the post's file_ids order (Client4's getFileInfosForPost).
         *
         *     Permissions: read_channel on the post's channel
         */
        get: operations["GetFileInfosForPost"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/posts/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search the posts of a team
         * @description Finds posts by their words, newest first, in the channels of the team the caller is a member of and in the
         *     caller's direct channels. Archived channels are searched only with `include_deleted_channels`; deleted posts
         *     and system messages never are.
         *
         *     The syntax of `terms` is Mattermost's:
         *
         *     - words: every word must appear (any one with `is_or_search`); letter case and accents do not matter;
         *     - `"a quoted phrase"`: these words, in this order, next to each other;
         *     - `deplo*`: words that begin with `deplo`;
         *     - `-word`, `-"a phrase"`: posts with it are left out;
         *     - `#tag`: posts carrying that hashtag;
         *     - `from:username` (also `from:@username`), `in:channel-name` (also `channel:`, `in:~channel-name`,
         *       `in:@username` for the direct channel with that user), each several times for any of them, and `-from:`,
         *       `-in:` to leave them out;
         *     - `on:YYYY-MM-DD`, `after:YYYY-MM-DD` (from the next day), `before:YYYY-MM-DD` (up to the day before), and
         *       `-on:`, `-after:`, `-before:`; days are taken in the caller's time zone, `time_zone_offset` seconds east of UTC.
         *
         *     A search of filters alone (`from:alice in:town-square`) lists the matching posts. At most 32 words, phrases
         *     and filters; pages reach at most 10,000 results deep. On MySQL/MariaDB, words shorter than
         *     innodb_ft_min_token_size (3 characters) narrow a search but cannot find posts on their own.
         *
         *     Permissions: view_team
         */
        post: operations["SearchPosts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/bots": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List bots
         * @description Returns a page of bots in creation order: every bot for a caller with read_others_bots, only the caller's own
         *     with read_bots alone. Disabled bots only with `include_deleted=true`; `only_orphaned=true` keeps the bots whose
         *     owner is deactivated. The response carries an ETag; a matching `If-None-Match` gets 304.
         *
         *     Permissions: read_others_bots, or read_bots for one's own bots
         */
        get: operations["GetBots"];
        put?: never;
        /**
         * Create a bot account
         * @description Creates a bot owned by the caller: a user account with `is_bot` true, e-mail `<username>@localhost`, no
         *     password (it cannot log in; its owner creates access tokens for it) and the system_user role. The username
         *     follows the rules for users' and must not be taken (400 `app.user.save.username_exists.app_error`). A bot cannot
         *     create bots (403). When ServiceSettings.EnableBotAccountCreation is off (the default) the answer is 403
         *     `api.bot.create_disabled`, after the permission check, as in Mattermost.
         *
         *     Permissions: create_bot (system admins, in the default roles)
         */
        post: operations["CreateBot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/bots/{bot_user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a bot
         * @description Returns one bot; a disabled one only with `include_deleted=true`. A caller who may not read the bot gets the
         *     same 404 `store.sql_bot.get.missing.app_error` as for a bot that does not exist (as in Mattermost: the answer
         *     must not tell whether a user is a bot). The response carries an ETag; a matching `If-None-Match` gets 304.
         *
         *     Permissions: read_others_bots, or read_bots for one's own bot
         */
        get: operations["GetBot"];
        /**
         * Change some fields of a bot
         * @description Updates the fields present in the body (on the bot's user too: username, first_name, bot_description) and
         *     returns the bot; its user's change is published as `user_updated`. A caller who may not even read the bot gets
         *     404 `store.sql_bot.get.missing.app_error`; one who may read but not manage it, 403.
         *
         *     Permissions: manage_bots for one's own bot, manage_others_bots for another's
         */
        put: operations["PatchBot"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/bots/{bot_user_id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable a bot
         * @description Disables the bot: its user is deactivated (delete_at set), its access tokens stop working and its open
         *     WebSockets close (the tokens are kept: enabling the bot brings them back). Disabling a disabled bot changes
         *     nothing. Returns the bot.
         *     A caller who may not even read the bot gets 404 `store.sql_bot.get.missing.app_error`.
         *
         *     Permissions: manage_bots for one's own bot, manage_others_bots for another's
         */
        post: operations["DisableBot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/bots/{bot_user_id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable a bot
         * @description Enables a disabled bot: its user is active again and its access tokens work again. Returns the bot.
         *     A caller who may not even read the bot gets 404 `store.sql_bot.get.missing.app_error`.
         *
         *     Permissions: manage_bots for one's own bot, manage_others_bots for another's
         */
        post: operations["EnableBot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/bots/{bot_user_id}/assign/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Give a bot another owner
         * @description Makes the user in the path the bot's owner and returns the bot. The new owner must be an existing user and not
         *     a bot (403, as in Mattermost). A caller who may not even read the bot gets 404
         *     `store.sql_bot.get.missing.app_error`.
         *
         *     Permissions: manage_bots for one's own bot, manage_others_bots for another's
         */
        post: operations["AssignBot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/bots/{bot_user_id}/convert_to_user": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn a bot into an ordinary user
         * @description Turns an enabled bot back into a user: the body (a user patch) is applied to its account, which must include a
         *     `password` (400 `api.context.invalid_param.app_error` without one); `set_system_admin=true` also makes it a
         *     system admin. The bot record goes; the account, its posts, memberships and access tokens stay (the tokens are
         *     then held to ServiceSettings.EnableUserAccessTokens like any user's). Returns the user.
         *
         *     Permissions: manage_system
         */
        post: operations["ConvertBotToUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/users/{user_id}/convert_to_bot": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn a user into a bot
         * @description Turns a user account into a bot owned by itself (as Mattermost does): `is_bot` becomes true, the display name is
         *     kept, the password no longer logs in and every login session ends (bots use access tokens). A user who is
         *     already a bot is 400. Returns the bot.
         *
         *     Permissions: manage_system
         */
        post: operations["ConvertUserToBot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/hooks/incoming": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List incoming webhooks
         * @description Returns a page of active incoming webhooks, of one team when `team_id` is given, otherwise of every team.
         *     Callers without manage_others_incoming_webhooks see only their own hooks. With `include_total_count=true`
         *     the page is wrapped in an object with the total count.
         *
         *     Permissions: manage_own_incoming_webhooks (on the team when team_id is given, otherwise system-wide)
         */
        get: operations["GetIncomingWebhooks"];
        put?: never;
        /**
         * Create an incoming webhook
         * @description Creates an incoming webhook posting to the given channel. The returned `id` is the secret key of the URL
         *     `/hooks/{id}`. The hook belongs to the caller unless `user_id` names someone else. Username and icon are
         *     stored only when the matching override setting is on. Answers 501 when
         *     ServiceSettings.EnableIncomingWebhooks is off.
         *
         *     Permissions: manage_own_incoming_webhooks on the channel's team and read access to the channel; for a hook owned
         *     by another user also manage_others_incoming_webhooks
         */
        post: operations["CreateIncomingWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/hooks/incoming/{hook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an incoming webhook
         * @description Returns one active incoming webhook.
         *
         *     Permissions: manage_own_incoming_webhooks on the hook's team and read access to its channel; for another user's
         *     hook also manage_others_incoming_webhooks
         */
        get: operations["GetIncomingWebhook"];
        /**
         * Update an incoming webhook
         * @description Replaces the editable fields of the hook (channel_id, display_name, description, username, icon_url,
         *     channel_locked) and returns it. The body `id` must equal the path id (400 otherwise). The new channel must be
         *     in the hook's team. Owner, team and times cannot be changed: Client4 sends the whole hook object, and those
         *     fields are ignored (a different `team_id` is 400). Success is 200; Mattermost answers 201, and Client4
         *     accepts either.
         *
         *     Permissions: as for GetIncomingWebhook, checked against the new channel too
         */
        put: operations["UpdateIncomingWebhook"];
        post?: never;
        /**
         * Delete an incoming webhook
         * @description Soft-deletes the hook. Its URL stops working immediately: later payloads get 404, exactly as for a key that
         *     never existed.
         *
         *     Permissions: as for GetIncomingWebhook
         */
        delete: operations["DeleteIncomingWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/hooks/incoming/{hook_id}/regen_signing_secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Regenerate an incoming webhook's signing secret
         * @description Parley's own operation (Mattermost signs nothing). Gives the hook a new random `signing_secret` and returns the
         *     updated hook. Clicks on interactive actions of the hook's posts are signed with the new secret from now on (the
         *     old one stops at once: switch the integration's verifier to the new secret right after). The hook's URL (its id)
         *     does not change.
         *
         *     Permissions: as for GetIncomingWebhook (manage_own_incoming_webhooks on the team, read_channel on a private
         *     channel, manage_others_incoming_webhooks for someone else's hook)
         */
        post: operations["RegenIncomingHookSigningSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/hooks/{hook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post a message through an incoming webhook
         * @description Creates one post (or several, for long text) from a Slack- or Mattermost-style payload. The hook key in the
         *     path is the only credential: no session, no CSRF token. The post is authored by the hook's creator and always
         *     marked as coming from a webhook (`props.from_webhook`), which clients show as a BOT tag.
         *
         *     How the body is read:
         *
         *     1. By Content-Type. `application/json`: the body is the payload. `application/x-www-form-urlencoded`: the
         *        payload is the JSON text in the form field `payload` (other fields are ignored). `multipart/form-data`:
         *        either a `payload` part holding the JSON text, or separate parts named after the payload fields (`text`,
         *        `username`, `channel`, `icon_url`, `icon_emoji`, `type`, `root_id`). The media type is matched without regard to
         *        letter case and its parameters (such as `charset`) are ignored; a Content-Type header that cannot be parsed
         *        is rejected with 400.
         *     2. Without a Content-Type header, a body beginning with `payload=` is treated as form-encoded (the rest,
         *        URL-decoded, is the JSON text); any other body is read as JSON. Any media type not listed above (for
         *        example `text/plain`) is also read as JSON, as Mattermost does: no request is refused for its media type
         *        (there is no 415; a Content-Type that cannot be parsed is 400).
         *     3. An `application/json` body that begins with `payload=` is not valid JSON and gets 400; a form-encoded body
         *        without a `payload` field gets 400.
         *
         *     Whatever the encoding, the decoded object must satisfy IncomingWebhookPayload. Archived channels cannot be
         *     posted to. Text longer than 16383 Unicode
         *     code points becomes several consecutive posts, committed together. `ok` is answered only once the posts are
         *     stored, with the ids of the posts made in `X-Post-Ids`.
         *
         *     **Exactly once.** Send an `Idempotency-Key` header (any printable ASCII string of at most 255 characters, such as
         *     a UUID or a build id) and retry with the same key after a timeout or a 5xx: the first request with a key posts,
         *     and any repeat with that key to the same hook within 24 hours gets the first answer again (`ok` and the same
         *     `X-Post-Ids`) and posts nothing, also after a server restart and on another server process. A repeat sent while
         *     the first is still being written waits for it. A request that failed stored nothing, so its retry posts.
         *
         *     **Rate limit.** Each hook may post `RateLimitSettings.WebhookPerSec` times per second (default 10) with bursts of
         *     `WebhookMaxBurst` (default 100); past that the answer is 429 with `Retry-After` (seconds) and nothing is posted.
         *
         *     Permissions: none (the hook key is the secret); the hook's creator must be allowed to post to the target channel
         */
        post: operations["ExecuteIncomingWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/commands": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a team's slash commands
         * @description With `custom_only=true`: the team's custom commands, unsanitized (tokens included), only the caller's own unless
         *     they may manage others' (501 while `ServiceSettings.EnableCommands` is off). Otherwise: for a caller who may
         *     manage commands, the built-in commands and the team's custom commands (sanitized: no token, url, method,
         *     creator, username or icon), again only their own custom ones unless they may manage others'; for anyone else
         *     the autocomplete list (as ListAutocompleteCommands). `team_id` is required (400 otherwise).
         *
         *     Permissions: view_team on the team; custom_only also manage_own_slash_commands
         */
        get: operations["ListCommands"];
        put?: never;
        /**
         * Create a slash command
         * @description Creates a custom slash command on a team and returns it with its token (201). The trigger is stored lower-case
         *     and must differ, ignoring letter case, from every built-in command and every command of the team
         *     (`api.command.duplicate_trigger.app_error`, 400). Checked as Mattermost checks them (400,
         *     `model.command.is_valid.<field>.app_error`): trigger 1 to 128 characters without a leading "/" or a space
         *     (`trigger`), url present and at most 1024 characters (`url`) and http(s) (`url_http`), method "P" or "G"
         *     (`method`), display_name at most 64 characters, description at most 128. The token is always made by the
         *     server. `ServiceSettings.EnableCommands` off: 501 `api.command.disabled.app_error`.
         *
         *     Permissions: manage_own_slash_commands on the team; with a `creator_id` other than the caller's (who must exist)
         *     also manage_others_slash_commands
         */
        post: operations["CreateCommand"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/commands/execute": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a slash command
         * @description Runs `command` (e.g. "/echo hi") in the channel as the caller and returns the CommandResponse. The trigger is
         *     the text before the first whitespace, lower-cased; the rest after that character is the command's text. A
         *     custom command of the channel's team wins over a built-in one of the same trigger. Unknown:
         *     404 `api.command.execute_command.not_found.app_error`. `command` must be longer than one character and start with
         *     "/", and `channel_id` must be a valid id (400 `api.command.execute_command.start.app_error`); an archived channel
         *     is 400 `api.command.execute_command.deleted.error`. `ServiceSettings.EnableCommands` off: 501
         *     `api.command.disabled.app_error` (for built-in commands too, as in Mattermost).
         *
         *     A custom command's URL gets Mattermost's request: POST with a form body (method "P") or GET with the fields
         *     added to the query (method "G"); `Accept: application/json`, `Authorization: Token <token>`, and Parley's
         *     signature (`X-Parley-Timestamp`, `X-Parley-Signature: v1=<hex HMAC-SHA256 of "v1:" + timestamp + ":" + body>`
         *     keyed by the token; for a GET the raw query string stands in for the body). Fields: token, team_id,
         *     team_domain, channel_id, channel_name, user_id, user_name, command, text, trigger_id, root_id, response_url
         *     (`ServiceSettings.SiteURL` + `/hooks/commands/<id>`: an empty SiteURL is 400
         *     `api.command.execute_command.site_url_required.app_error`), and repeated user_mentions/user_mentions_ids and
         *     channel_mentions/channel_mentions_ids. The address rule of `ServiceSettings.AllowedUntrustedInternalConnections`
         *     applies, the call is given `ServiceSettings.OutgoingIntegrationRequestsTimeout` seconds, it is never retried,
         *     and it is recorded in the command's delivery log. Its answer: a status other than 200 is 500
         *     `api.command.execute_command.failed_resp.app_error`; no answer (refused, unreachable, timed out) or bad JSON
         *     is 500 `api.command.execute_command.failed.app_error`; `application/json` is a CommandResponse, any other type
         *     is the reply's text. Replies are posted as the caller (custom commands' posts carry `from_webhook`), in the
         *     caller's thread when run in one; ephemeral replies go to the caller's sockets as `ephemeral_message`. A reply
         *     that cannot be posted is 500 `api.command.execute_command.create_post_failed.app_error`.
         *
         *     Permissions: create_post in the channel; in a direct or group channel, membership of the given team (or the
         *     system-wide create_post)
         */
        post: operations["ExecuteCommand"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/commands/{command_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a slash command
         * @description Returns one custom command, unsanitized. A command the caller may not manage answers exactly as a missing one
         *     (404 `store.sql_command.save.get.app_error`), so ids reveal nothing. 501 while `ServiceSettings.EnableCommands`
         *     is off.
         *
         *     Permissions: view_team and manage_own_slash_commands on the command's team; for another user's command also
         *     manage_others_slash_commands
         */
        get: operations["GetCommandById"];
        /**
         * Update a slash command
         * @description Replaces the command's editable fields (trigger, method, url, username, icon_url, auto_complete and its texts,
         *     display_name, description) with the body's, checked as CreateCommand checks them, and returns it. The body `id`
         *     must equal the path's (400 `api.context.invalid_param.app_error`); a different `team_id` is 400
         *     `api.command.team_mismatch.app_error` (MoveCommand moves commands). Id, token, creator, team and times are
         *     kept.
         *
         *     Permissions: manage_own_slash_commands on the command's team (404 without it, as a missing command); for another
         *     user's command also manage_others_slash_commands (403)
         */
        put: operations["UpdateCommand"];
        post?: never;
        /**
         * Delete a slash command
         * @description Deletes the command (soft delete: it stops running and leaves every list); its pending response URLs stop
         *     working.
         *
         *     Permissions: manage_own_slash_commands on the command's team (404 without it); for another user's command also
         *     manage_others_slash_commands (403)
         */
        delete: operations["DeleteCommand"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/commands/{command_id}/move": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Move a slash command to another team
         * @description Moves the command to the team in the body. Its trigger must be free on that team (400
         *     `api.command.duplicate_trigger.app_error`), and the command's creator must be allowed to manage commands there
         *     (400 `api.command.move_command.creator_no_permission.app_error`). An unknown team is 404
         *     `app.team.get.find.app_error`.
         *
         *     Permissions: manage_own_slash_commands on the new team (403) and on the command's team (404 without it); for
         *     another user's command also manage_others_slash_commands (403)
         */
        put: operations["MoveCommand"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/commands/{command_id}/regen_token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Regenerate a slash command's token
         * @description Gives the command a new random token and returns it as `{"token": "..."}` (a PUT, as in Mattermost). Calls made
         *     from then on carry (and are signed with) the new token.
         *
         *     Permissions: manage_own_slash_commands on the command's team (404 without it); for another user's command also
         *     manage_others_slash_commands (403)
         */
        put: operations["RegenCommandToken"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/commands/{command_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The delivery log of a slash command
         * @description Parley's own operation: the last 100 calls this server made to the command's URL, newest first, each with its
         *     time, duration, HTTP status (0 when there was no answer: refused by the address rule, unreachable, timed out)
         *     and error. Never the token or a body. Slash command calls are never retried (`attempt` is always 1) and have no
         *     post (`post_id` "").
         *
         *     Permissions: the same as for GetCommandById (404 for a command the caller may not manage)
         */
        get: operations["GetCommandDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/commands/autocomplete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The commands autocomplete offers on a team
         * @description The built-in commands and the team's custom commands with auto_complete on (while
         *     `ServiceSettings.EnableCommands` is on), sanitized; a custom command never hides a built-in one of the same
         *     trigger here.
         *
         *     Permissions: view_team on the team
         */
        get: operations["ListAutocompleteCommands"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/teams/{team_id}/commands/autocomplete_suggestions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Autocomplete suggestions for a command being typed
         * @description Suggestions for `user_input` (what the user has typed, with or without the leading "/"): while it is one word,
         *     the autocomplete commands whose trigger starts with it, sorted by trigger; once a space follows the trigger,
         *     none (no command here declares arguments). Keys are capitalized, as Mattermost's. A missing `user_input` is 400.
         *
         *     Permissions: view_team on the team
         */
        get: operations["ListCommandAutocompleteSuggestions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/hooks/commands/{hook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer a slash command later (its response_url)
         * @description The `response_url` a custom command's call carries: the integration posts further replies to it, a JSON
         *     CommandResponse (`Content-Type: application/json`) or plain text (any other type: the body is the reply's
         *     text). The replies are handled as the command's first answer: posted as the user who ran the command into the
         *     channel it ran in, and into its thread when it ran in one; ephemeral ones go to that user's sockets. A
         *     response URL works for 30 minutes (later, or unknown: 404 `app.command_webhook.get.missing`) and 5 times (400
         *     `app.command_webhook.try_use.invalid`); a deleted command's URLs stop working (400
         *     `web.command_webhook.command.app_error`); bad JSON is 400 `web.command_webhook.parse.app_error`. Answers
         *     `ok` as text/plain. Served beside the API (not under /api/v4), as Mattermost serves it.
         *
         *     Permissions: none (the URL is the secret); the user who ran the command must still be a member of the channel
         *     for in-channel replies
         */
        post: operations["ExecuteCommandWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/hooks/outgoing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List outgoing webhooks
         * @description Returns a page of active outgoing webhooks: of one channel when `channel_id` is given, else of one team when
         *     `team_id` is given, else of every team. Callers without manage_others_outgoing_webhooks see only their own
         *     hooks; hooks bound to a private channel are listed only to its members (and system admins).
         *
         *     Permissions: manage_own_outgoing_webhooks on the channel, the team, or system-wide
         */
        get: operations["GetOutgoingWebhooks"];
        put?: never;
        /**
         * Create an outgoing webhook
         * @description Creates an outgoing webhook on a team and returns it with its `token`. Without `channel_id` it watches every
         *     public channel of the team and needs at least one trigger word; with one it watches that channel, and with no
         *     trigger words fires on every post there. Parley also allows a private channel when the caller (and the hook's
         *     creator) are members of it. Another hook of the team with the same channel, a shared callback URL and a shared
         *     trigger word is refused (`api.webhook.create_outgoing.intersect.app_error`; 400 here, Mattermost answers 500).
         *     Answers 501 when ServiceSettings.EnableOutgoingWebhooks is off.
         *
         *     Permissions: manage_own_outgoing_webhooks on the team; for a hook owned by another user (`creator_id`) also
         *     manage_others_outgoing_webhooks
         */
        post: operations["CreateOutgoingWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/hooks/outgoing/{hook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an outgoing webhook
         * @description Returns one active outgoing webhook, with its token.
         *
         *     Permissions: manage_own_outgoing_webhooks on the hook's team (and membership of its channel when that is
         *     private); for another user's hook also manage_others_outgoing_webhooks
         */
        get: operations["GetOutgoingWebhook"];
        /**
         * Update an outgoing webhook
         * @description Replaces the hook's editable fields (channel_id, trigger_words, trigger_when, callback_urls, display_name,
         *     description, content_type, username, icon_url) with the body's; a field left out keeps its value. The body `id`
         *     must equal the path id (400). Creator, team, token and times cannot be changed here (Client4 sends the whole
         *     object: those fields are ignored, and a different `team_id` is `api.webhook.team_mismatch.app_error`, 400). The
         *     same rules as on creation apply (`api.webhook.update_outgoing.intersect.app_error` for an overlap; a team-wide
         *     hook without trigger words is `api.webhook.create_outgoing.triggers.app_error`, 400 here where Mattermost answers
         *     500).
         *
         *     Permissions: as for GetOutgoingWebhook
         */
        put: operations["UpdateOutgoingWebhook"];
        post?: never;
        /**
         * Delete an outgoing webhook
         * @description Soft-deletes the hook: posts no longer fire it, and calls still queued for it are dropped.
         *
         *     Permissions: as for GetOutgoingWebhook
         */
        delete: operations["DeleteOutgoingWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/hooks/outgoing/{hook_id}/regen_token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Regenerate an outgoing webhook's token
         * @description Gives the hook a new random token and returns the updated hook (as Mattermost's server does; its spec says
         *     `{"status":"OK"}`). Calls made from now on carry, and are signed with, the new token.
         *
         *     Permissions: as for GetOutgoingWebhook
         */
        post: operations["RegenOutgoingHookToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/hooks/outgoing/{hook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an outgoing webhook's recent deliveries
         * @description Parley's own. The last 100 attempts to call the hook's callback URLs, newest first: when each was sent, how
         *     long it took, the status that came back (0 when none did) and what went wrong. Never the token or the body.
         *     A call whose attempt timed out, could not connect or got a 5xx is retried (up to 5 attempts in all, each retry
         *     carrying `X-Parley-Retry-Num`); each attempt is one entry.
         *
         *     Permissions: as for GetOutgoingWebhook
         */
        get: operations["GetOutgoingWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v4/hooks/outgoing/{hook_id}/deliveries/{delivery_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery's call again
         * @description Parley's own. Queues the call of the given attempt's post again, as a new call (its first attempt carries no
         *     `X-Parley-Retry-Num`), to the same callback URL when the hook still has it, otherwise to each of the hook's
         *     callback URLs. The post must still exist (404 `app.post.get.app_error`); an attempt not of this hook is 404
         *     `app.webhooks.get_delivery.app_error`.
         *
         *     Permissions: as for GetOutgoingWebhook
         */
        post: operations["RedeliverOutgoingWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Body of every error response. Client4 builds its ClientError from this object: `message`, `id` (server_error_id), `status_code` and `detailed_error`. */
        AppError: {
            /**
             * @description Stable dotted identifier of the error, Mattermost's own where one exists, so programs can tell errors apart without parsing the message.
             * @example api.context.permissions.app_error
             */
            id: string;
            /**
             * @description Human-readable explanation of the error.
             * @example You do not have the appropriate permissions.
             */
            message: string;
            /**
             * @description Extra diagnostic detail. Empty unless ServiceSettings.EnableDeveloper is on, and never internal details for server errors.
             * @example
             */
            detailed_error: string;
            /**
             * @description The same value as the X-Request-Id response header.
             * @example 3n1dp4kxwfbk8ft9yjz6cg5h8e
             */
            request_id: string;
            /**
             * @description The HTTP status code of the response, repeated in the body.
             * @example 403
             */
            status_code: number;
        };
        /** @description A bot account: a user meant for programs (is_bot true on its user), owned by the user who created it (or was assigned it). It logs in with personal access tokens only, never a password; its posts carry `from_bot`. */
        Bot: {
            /** @description Id of the bot's user account (a bot and its user share the id). */
            user_id: string;
            /** @description The bot's username (its user's). */
            username: string;
            /** @description The bot's display name (its user's first_name), at most 64 characters. */
            display_name: string;
            /** @description What the bot does, at most 1024 characters (its user's bot_description). */
            description: string;
            /** @description Id of the user who owns the bot. */
            owner_id: string;
            /**
             * Format: int64
             * @description Time the bot's icon was last set, epoch milliseconds; 0 when it has none.
             */
            last_icon_update: number;
            /**
             * Format: int64
             * @description Creation time, epoch milliseconds.
             */
            create_at: number;
            /**
             * Format: int64
             * @description Last change, epoch milliseconds.
             */
            update_at: number;
            /**
             * Format: int64
             * @description Time the bot was disabled, epoch milliseconds; 0 while it is enabled.
             */
            delete_at: number;
        };
        /** @description A channel. Direct-message channels (type D) have an empty team_id and the name `<idA>__<idB>`. */
        Channel: {
            /** @description Unique 26-character id of the channel. */
            id: string;
            /**
             * Format: int64
             * @description Creation time, epoch milliseconds.
             */
            create_at: number;
            /**
             * Format: int64
             * @description Time of the last change to the channel's settings, epoch milliseconds.
             */
            update_at: number;
            /**
             * Format: int64
             * @description Archive time in epoch milliseconds; 0 while the channel is active.
             */
            delete_at: number;
            /** @description Id of the team the channel belongs to; empty for direct and group channels. */
            team_id: string;
            /**
             * @description `O` public, `P` private, `D` direct message between two users, `G` group message.
             * @enum {string}
             */
            type: "O" | "P" | "D" | "G";
            /** @description Name shown to users; empty for direct channels. */
            display_name: string;
            /** @description URL name, unique within the team. For a direct channel it is the two user ids, sorted and joined with a double underscore. */
            name: string;
            /** @description Markdown text shown in the channel header. */
            header?: string;
            /** @description Short description of what the channel is for. */
            purpose?: string;
            /**
             * Format: int64
             * @description Creation time of the newest post, epoch milliseconds; 0 if none.
             */
            last_post_at?: number;
            /**
             * Format: int64
             * @description Creation time of the newest root (non-reply) post, epoch milliseconds; 0 if none.
             */
            last_root_post_at?: number;
            /**
             * Format: int64
             * @description Number of posts in the channel, replies included.
             */
            total_msg_count?: number;
            /**
             * Format: int64
             * @description Number of root posts in the channel.
             */
            total_msg_count_root?: number;
            /**
             * Format: int64
             * @description Deprecated by Mattermost since 5.0; kept only for compatibility.
             */
            extra_update_at?: number;
            /** @description Id of the user who created the channel; empty for channels created by the system. */
            creator_id?: string;
            /** @description Id of the permission scheme applied to the channel, if any. */
            scheme_id?: string | null;
            /** @description Free-form channel properties; null when none are set. */
            props?: {
                [key: string]: unknown;
            } | null;
            /** @description Whether membership is managed by synchronised groups. */
            group_constrained?: boolean | null;
            /** @description Whether the channel is shared with a remote cluster. */
            shared?: boolean | null;
            /** @description Id of the data-retention policy applied to the channel, if any. */
            policy_id?: string | null;
        };
        /** @description Membership of one user in one channel, with that user's read state and notification settings. Only the user themselves sees those: another caller gets `last_viewed_at`, `last_update_at` and the message and mention counts as -1 and `notify_props` empty (Mattermost hides the two times the same way). */
        ChannelMember: {
            /** @description Id of the channel. */
            channel_id: string;
            /** @description Id of the member. */
            user_id: string;
            /** @description Space-separated channel roles, including those implied by the scheme flags (for example `channel_user`). */
            roles: string;
            /**
             * Format: int64
             * @description Time the member last viewed the channel, epoch milliseconds.
             */
            last_viewed_at: number;
            /**
             * Format: int64
             * @description Number of channel posts the member had seen when last viewing it, replies included.
             */
            msg_count: number;
            /**
             * Format: int64
             * @description Number of root posts the member had seen when last viewing the channel.
             */
            msg_count_root?: number;
            /**
             * Format: int64
             * @description Unread mentions of the member in the channel since last viewed.
             */
            mention_count: number;
            /**
             * Format: int64
             * @description Unread mentions in root posts since last viewed.
             */
            mention_count_root?: number;
            /**
             * Format: int64
             * @description Unread mentions in posts with urgent priority since last viewed.
             */
            urgent_mention_count?: number;
            /** @description Channel notification settings as a string map: desktop, push, email ("default", "all", "mention", "none"), mark_unread ("all", "mention"), ignore_channel_mentions, channel_auto_follow_threads. */
            notify_props: {
                [key: string]: string;
            };
            /**
             * Format: int64
             * @description Time the membership last changed, epoch milliseconds.
             */
            last_update_at: number;
            /** @description Whether the member is a guest in the channel. */
            scheme_guest?: boolean;
            /** @description Whether the member has the channel's user role. */
            scheme_user?: boolean;
            /** @description Whether the member has the channel's admin role. */
            scheme_admin?: boolean;
            /** @description Space-separated roles granted explicitly rather than through the scheme flags. */
            explicit_roles?: string;
        };
        /** @description A user's unread state of one channel after SetPostUnread (Mattermost's ChannelUnreadAt). */
        ChannelUnreadAt: {
            /** @description The channel's team ("" for direct and group channels). */
            team_id: string;
            /** @description Id of the channel. */
            channel_id: string;
            /** @description Id of the user. */
            user_id: string;
            /**
             * Format: int64
             * @description Messages the user has read (the channel's total less the unread ones).
             */
            msg_count: number;
            /**
             * Format: int64
             * @description Unread mentions.
             */
            mention_count: number;
            /**
             * Format: int64
             * @description Unread mentions in root posts.
             */
            mention_count_root: number;
            /**
             * Format: int64
             * @description Unread urgent mentions (always 0 here; posts have no priority).
             */
            urgent_mention_count: number;
            /**
             * Format: int64
             * @description Root posts the user has read.
             */
            msg_count_root: number;
            /**
             * Format: int64
             * @description The post's create_at - 1, epoch milliseconds.
             */
            last_viewed_at: number;
        };
        /** @description A channel membership with the team of its channel: the fields of ChannelMember, plus the team's display name, name and last update time (empty strings and 0 for a direct or group channel, which has no team). */
        ChannelMemberWithTeamData: components["schemas"]["ChannelMember"] & {
            /** @description Display name of the channel's team; empty for a direct or group channel. */
            team_display_name: string;
            /** @description Name of the channel's team; empty for a direct or group channel. */
            team_name: string;
            /**
             * Format: int64
             * @description Time the channel's team last changed, epoch milliseconds; 0 for a direct or group channel.
             */
            team_update_at: number;
        };
        /** @description Counts about one channel, as GetChannelStats answers. */
        ChannelStats: {
            /** @description Id of the channel. */
            channel_id: string;
            /**
             * Format: int64
             * @description Members of the channel whose accounts are active (deactivated users are not counted).
             */
            member_count: number;
            /**
             * Format: int64
             * @description Members who are guests; always 0 (Parley has no guest accounts).
             */
            guest_count: number;
            /**
             * Format: int64
             * @description Pinned posts of the channel that are not deleted.
             */
            pinnedpost_count: number;
            /**
             * Format: int64
             * @description Files attached to the channel's posts; -1 when the request asked `exclude_files_count=true`.
             */
            files_count: number;
        };
        /** @description Result of marking channels as viewed. */
        ChannelViewResponse: {
            /**
             * @description Always `OK`.
             * @example OK
             */
            status: string;
            /** @description For each channel marked as viewed, its id mapped to the new last-viewed time (epoch milliseconds). */
            last_viewed_at_times?: {
                [key: string]: number;
            };
        };
        /**
         * @description Settings clients need before and after login, as a flat map of strings (booleans are `"true"` or `"false"`). Anonymous callers get the limited set a login or sign-up page needs: Version, BuildNumber, BuildHash, SiteName, SiteURL, DiagnosticsEnabled, NoAccounts (`"true"` while no user exists yet), EnableOpenServer, EnableUserCreation, EnableSignUpWithEmail. With a session the full set adds EnableIncomingWebhooks, EnableOutgoingWebhooks, EnableCommands, EnableBotAccountCreation (what the integrations page offers), EnablePostUsernameOverride, EnablePostIconOverride, EnableUserAccessTokens, ShowEmailAddress, ShowFullName, MaxPostSize (the message limit in characters), UniqueEmojiReactionLimitPerPost and CollapsedThreads (`disabled`, `default_on`, `default_off` or `always_on`).
         * @example {
         *       "Version": "4.0.0",
         *       "SiteName": "Parley",
         *       "NoAccounts": "false",
         *       "EnableIncomingWebhooks": "true"
         *     }
         */
        ClientConfig: {
            [key: string]: string;
        };
        /** @description Server configuration: a subset of Mattermost's configuration, with the same section and key names. Every key is optional, so the same shape serves as a partial patch. Settings can also be set from `MM_<SECTION>_<KEY>` environment variables (for example MM_SQLSETTINGS_DRIVERNAME); those win over stored values. Sections and keys Parley does not know are ignored. In a patch, a null section or key is not changed (Mattermost's config fields are pointers: null is "not given"); a returned config never holds null. */
        Config: {
            /** @description Settings of the HTTP service and of integrations. */
            ServiceSettings?: {
                /**
                 * @description Public URL users reach the server at, without a trailing slash: empty, or an http:// or https:// URL (400 otherwise). A patch that clears a non-empty value is rejected with 400.
                 * @example https://chat.example.com
                 */
                SiteURL?: string | null;
                /**
                 * @description Address and port the server listens on; read at start-up.
                 * @example :8065
                 */
                ListenAddress?: string | null;
                /** @description Whether incoming webhooks may be created and executed (default true). */
                EnableIncomingWebhooks?: boolean | null;
                /** @description Whether webhook payloads and hooks may change the username shown on their posts (default false). */
                EnablePostUsernameOverride?: boolean | null;
                /** @description Whether webhook payloads and hooks may change the profile picture shown on their posts (default false). */
                EnablePostIconOverride?: boolean | null;
                /** @description Whether users may create personal access tokens (default false). */
                EnableUserAccessTokens?: boolean | null;
                /**
                 * Format: int64
                 * @description Largest request body accepted, in bytes (default 300000); larger bodies get 413.
                 */
                MaximumPayloadSizeBytes?: number | null;
                /** @description When true, error responses include detailed_error (default false). */
                EnableDeveloper?: boolean | null;
                /** @description Failed logins (wrong password) after which an account is locked (default 10): every further login is refused with 401 `api.user.check_user_login_attempts.too_many.app_error` until the lock expires (LoginLockoutMinutes), a system admin sets a new password or the user changes theirs from a session. A successful login resets the count. Unknown login ids are counted alike; wrong current passwords given inside a session (changing a password or email) are counted per session, with the same limit. */
                MaximumLoginAttempts?: number | null;
                /** @description Parley's own: how long the first lock lasts, in minutes (default 15). Each further lock in a row doubles it, up to 24 hours; a counter with no failure and no lock for 24 hours is forgotten. */
                LoginLockoutMinutes?: number | null;
                /** @description How long a login session lasts, in hours (default 720, 30 days). */
                SessionLengthWebInHours?: number | null;
                /** @description When true, a cookie-authenticated request that changes something must carry the session's CSRF token in `X-CSRF-Token`; `X-Requested-With: XMLHttpRequest` alone no longer passes (default false, as Mattermost). */
                ExperimentalStrictCSRFEnforcement?: boolean | null;
                /**
                 * @description Collapsed reply threads, as Mattermost: `always_on` (the default, as Mattermost's: the apps show replies in their Threads view only, channel pages holding root posts), `default_on` / `default_off` (each user chooses, starting on or off), `disabled`.
                 * @enum {string|null}
                 */
                CollapsedThreads?: "disabled" | "default_on" | "default_off" | "always_on" | null;
                /** @description How many different emoji one post may carry as reactions (default 50, as Mattermost); values above 500 count as 500. Users may still add an emoji the post already has. */
                UniqueEmojiReactionLimitPerPost?: number | null;
                /** @description Whether outgoing webhooks may be created and fire (default true). */
                EnableOutgoingWebhooks?: boolean | null;
                /** @description Whether slash commands run, built-in and custom, and custom ones may be managed (default true). */
                EnableCommands?: boolean | null;
                /** @description Seconds an outgoing webhook, slash command or interactive action call may take (default 30). */
                OutgoingIntegrationRequestsTimeout?: number | null;
                /** @description Space-separated hostnames, IP addresses and CIDR ranges that integration calls may reach although they are loopback, private, link-local or the server's own addresses (default "": none). A hostname matches the URL's host exactly; an IP or CIDR matches the address the host resolves to. No ports. */
                AllowedUntrustedInternalConnections?: string | null;
                /** @description Whether bot accounts may be created (default false). */
                EnableBotAccountCreation?: boolean | null;
            } | null;
            /** @description Settings of teams and sign-up. */
            TeamSettings?: {
                /**
                 * @description The name the web client shows in page titles and on the login page (default "Parley"); at most 30 characters (400 `model.config.is_valid.sitename_length.app_error` otherwise). Served to every caller as the client config's SiteName.
                 * @example Acme Chat
                 */
                SiteName?: string | null;
                /** @description Whether anyone may sign up without an invitation (default false). The first account is always allowed. */
                EnableOpenServer?: boolean | null;
                /** @description Whether new accounts may be created at all, other than by a system admin (default true). */
                EnableUserCreation?: boolean | null;
                /**
                 * Format: int64
                 * @description Channels with more members than this do not act on @channel, @all and @here (default 1000); a positive whole number (400 `model.config.is_valid.max_notify_per_channel.app_error` otherwise).
                 */
                MaxNotificationsPerChannel?: number | null;
                /** @description Seconds without activity after which an online user shows as away (default 300). */
                UserStatusAwayTimeout?: number | null;
            } | null;
            /** @description Database connection settings; read at start-up. */
            SqlSettings?: {
                /**
                 * @description `sqlite` for an embedded database file (default), `mysql` for MySQL or MariaDB.
                 * @enum {string|null}
                 */
                DriverName?: "sqlite" | "mysql" | null;
                /** @description Connection string: a file path for sqlite, `mysql://user:pass@host:port/db` for mysql. Returned masked as `********************************`; sending the masked value back leaves the stored value unchanged. */
                DataSource?: string | null;
                /** @description MySQL only: seconds one SQL statement may take before its connection is dropped and the request answered 503 (default 30), so a hung database cannot hold requests indefinitely. Migrations are not bounded. */
                QueryTimeout?: number | null;
            } | null;
            /** @description What users can see about other users. */
            PrivacySettings?: {
                /** @description Whether users see other users' e-mail addresses (default true). */
                ShowEmailAddress?: boolean | null;
                /** @description Whether users see other users' first and last names (default true). */
                ShowFullName?: boolean | null;
            } | null;
            /** @description Parley's own settings of the real-time API (`/api/v4/websocket`). */
            WebSocketSettings?: {
                /** @description How long a dropped connection can be resumed (default 300): a client that reconnects with its connection_id and sequence_number within this window gets the events it missed; later, a new hello. */
                ReplayWindowSeconds?: number | null;
                /** @description Events kept per connection for a resume (default 128); a client that missed more gets a new hello. */
                ReplayBufferSize?: number | null;
                /** @description Size of the events kept per connection for a resume, in characters of their frames (about bytes; default 1048576, 1 MiB): past it the oldest are let go, so events with large posts cannot pile up per connection. A client that missed an event no longer kept gets a new hello. */
                ReplayBufferBytes?: number | null;
                /** @description WebSocket connections one user may hold on one process, live or waiting to be resumed (default 16). A new connection past it makes room: first the connections waiting to be resumed, oldest first, then the live socket attached longest ago, which is closed (1008) and whose client gets a new hello when it reconnects. */
                MaxConnectionsPerUser?: number | null;
            } | null;
            /** @description Request rate limits (GCRA, like Mattermost's). The API limit is off by default; the per-webhook limit is on. With ClusterSettings enabled the limits are shared by every process through Redis; otherwise each process counts alone. */
            RateLimitSettings?: {
                /** @description Limit every request (default false). Limited responses carry X-RateLimit-Limit, -Remaining and -Reset. */
                Enable?: boolean | null;
                /** @description Sustained requests per second per key (default 10). */
                PerSec?: number | null;
                /** @description Requests allowed at once beyond the sustained rate (default 100). */
                MaxBurst?: number | null;
                /** @description Keys remembered per process (default 10000); the least recently seen are forgotten first. */
                MemoryStoreSize?: number | null;
                /** @description Key requests by the client's address (default true). */
                VaryByRemoteAddr?: boolean | null;
                /** @description Key requests by the user their session token authenticates (default false); a request whose token authenticates nobody, or that has none, is keyed by the address (with VaryByRemoteAddr). */
                VaryByUser?: boolean | null;
                /** @description Also key requests by this header's value, e.g. X-Forwarded-For behind a proxy (default empty). For X-Forwarded-For only the entry added by the trusted proxy counts (see TrustedProxyHops), not the whole header. */
                VaryByHeader?: string | null;
                /** @description Parley's own: how many proxies in front of the server append to X-Forwarded-For (default 1). The key is the entry this many from the right; entries to its left are chosen by the client and ignored. */
                TrustedProxyHops?: number | null;
                /** @description Posts per second each incoming webhook may make (default 10; 0 turns the limit off). */
                WebhookPerSec?: number | null;
                /** @description Requests a webhook may make at once beyond WebhookPerSec (default 100). */
                WebhookMaxBurst?: number | null;
            } | null;
            /** @description File uploads and where they are stored. DriverName and Directory are read at start-up and are per process (several processes must share one directory, e.g. a network file system, to serve each other's files); the other settings apply to the next request (the retention settings to the next hourly clean-up). */
            FileSettings?: {
                /** @description Whether files may be uploaded and attached (default true); off, uploads are refused with 403 `api.file.attachments.disabled.app_error`. Files already stored stay readable. */
                EnableFileAttachments?: boolean | null;
                /**
                 * @description Where files are stored: `local`, a directory of this machine (the only driver so far; Mattermost's `amazons3` is not implemented, and any other value stops the server at start-up).
                 * @enum {string|null}
                 */
                DriverName?: "local" | null;
                /** @description The directory files are stored in (default `./data/files`), created when missing. */
                Directory?: string | null;
                /**
                 * Format: int64
                 * @description Largest file accepted, in bytes (default 104857600, 100 MB, as Mattermost); a larger upload is refused with 413 `api.file.upload_file.too_large_detailed.app_error` and nothing of it is kept.
                 */
                MaxFileSize?: number | null;
                /**
                 * Format: int64
                 * @description Parley's own: bytes of files one user may have stored (default 10737418240, 10 GiB; 0 for no limit): the sizes of their live files, attached to a post or not, and of their deleted files whose bytes are not removed yet (thumbnails and previews are not counted). An upload that would pass it is refused with 413 `api.file.upload_file.storage_quota.app_error`, before any byte is stored when nothing is left, else as soon as its bytes pass what is left, and nothing of it is kept. It bounds a single request too (10 files of MaxFileSize). Counted per process for uploads in flight: uploads running at the same moment on several processes may together pass it by what was left.
                 */
                MaxUserStorageBytes?: number | null;
                /** @description Parley's own: hours an uploaded file that no post has attached is kept (default 168, a week: a draft left over a weekend still posts); then its record and bytes are removed by the hourly clean-up, and a post naming it is refused. 0 keeps them (as Mattermost). */
                UnattachedRetentionHours?: number | null;
                /** @description Parley's own: hours the bytes of a deleted file (the files of a deleted post) are kept (default 24); then the hourly clean-up removes them and the file's record. 0 keeps them (as Mattermost). A deleted file is 404 at once either way. */
                DeletedRetentionHours?: number | null;
            } | null;
            /** @description How notification emails are sent (Mattermost's names and types). */
            EmailSettings?: {
                /** @description Whether users who are mentioned (or sent a direct message) while away or offline get an email (default false). */
                SendEmailNotifications?: boolean | null;
                /** @description Host name of the SMTP server (default localhost). */
                SMTPServer?: string | null;
                /** @description Port of the SMTP server, a string as Mattermost's (default "10025"). */
                SMTPPort?: string | null;
                /**
                 * @description "" (plain), "TLS" (TLS from the first byte) or "STARTTLS" (default "").
                 * @enum {string|null}
                 */
                ConnectionSecurity?: "" | "TLS" | "STARTTLS" | null;
                /** @description User name for SMTP authentication; empty for none. */
                SMTPUsername?: string | null;
                /** @description Password for SMTP authentication. GetConfig returns it masked; a patch holding the mask keeps the stored value. */
                SMTPPassword?: string | null;
                /** @description Name in the From header of notification emails. */
                FeedbackName?: string | null;
                /** @description Address in the From header of notification emails (default test@example.com). */
                FeedbackEmail?: string | null;
                /** @description Collect each user's notifications and send them as one email per the user's `email_interval` preference (category `notifications`: "30" at once, "900" the default, "3600") (default false). */
                EnableEmailBatching?: boolean | null;
                /** @description Seconds between batch runs (default 30). */
                EmailBatchingInterval?: number | null;
                /**
                 * @description "full" puts the message in the email; "generic" only who wrote in which channel (default "full").
                 * @enum {string|null}
                 */
                EmailNotificationContentsType?: "full" | "generic" | null;
            } | null;
            /** @description Running several processes on one MySQL/MariaDB database; read at start-up. */
            ClusterSettings?: {
                /** @description Share real-time events and rate limits between processes through Redis (default false). */
                Enable?: boolean | null;
                /** @description The Redis server, e.g. `redis://127.0.0.1:6379` (required when Enable is true). */
                RedisURL?: string | null;
            } | null;
        };
        /** @description What the server knows of an uploaded file (Mattermost's FileInfo). Where the bytes are stored is never part of it. */
        FileInfo: {
            /** @description Unique 26-character id of the file. */
            id: string;
            /** @description Id of the user who uploaded it. */
            user_id: string;
            /** @description Id of the post it is attached to; absent until a post attaches it (CreatePost's file_ids). */
            post_id?: string;
            /** @description Id of the channel it was uploaded to; only members of that channel (and the uploader) may read it. */
            channel_id: string;
            /**
             * Format: int64
             * @description Upload time, epoch milliseconds.
             */
            create_at: number;
            /**
             * Format: int64
             * @description Time of the last change (attached to a post, deleted), epoch milliseconds.
             */
            update_at: number;
            /**
             * Format: int64
             * @description Deletion time (its post was deleted), epoch milliseconds; 0 unless deleted.
             */
            delete_at: number;
            /** @description The file name as uploaded (without any directory), at most 255 characters. */
            name: string;
            /** @description The name's extension, lower-case, without the dot; empty when it has none. */
            extension: string;
            /**
             * Format: int64
             * @description Size in bytes.
             */
            size: number;
            /** @description Media type, from the extension (or the content, for an image without a known extension). */
            mime_type: string;
            /** @description Width in pixels, upright (after EXIF orientation); images only. */
            width?: number;
            /** @description Height in pixels, upright (after EXIF orientation); images only. */
            height?: number;
            /** @description Whether the file is an image the server made a thumbnail and a preview of (false for other files, SVG and animated GIFs). */
            has_preview_image: boolean;
            /** @description Images only, a 16×16 JPEG of the image, base64-encoded (null otherwise), for a placeholder while it loads. */
            mini_preview?: string | null;
        };
        /** @description The files of one upload, in the order they were sent. */
        FileUploadResponse: {
            /** @description One FileInfo per uploaded file. */
            file_infos: components["schemas"]["FileInfo"][];
            /** @description The client_ids sent with the files, in the same order; empty when none were sent. */
            client_ids: string[];
        };
        /** @description An incoming webhook. Its `id` is the secret key of the URL `/hooks/{id}`; anyone holding it can post as the hook's creator. */
        IncomingWebhook: {
            /** @description Unique 26-character id, also the secret key of the hook URL. */
            id: string;
            /**
             * Format: int64
             * @description Creation time, epoch milliseconds.
             */
            create_at: number;
            /**
             * Format: int64
             * @description Time of the last change, epoch milliseconds.
             */
            update_at: number;
            /**
             * Format: int64
             * @description Deletion time in epoch milliseconds; 0 while the hook is active.
             */
            delete_at: number;
            /** @description Id of the user who owns the hook; posts made through it are authored by this user. */
            user_id: string;
            /** @description Id of the default channel for posts. */
            channel_id: string;
            /** @description Id of the team of the default channel; fixed when the hook is created. */
            team_id: string;
            /** @description Name of the hook, also stored on every post as props.webhook_display_name. */
            display_name: string;
            /** @description Free-text description. */
            description: string;
            /** @description Default username shown on posts when the payload gives none (needs ServiceSettings.EnablePostUsernameOverride); empty to use the owner's username. */
            username: string;
            /** @description Default profile picture URL for posts when the payload gives none (needs ServiceSettings.EnablePostIconOverride); empty for the owner's picture. */
            icon_url: string;
            /** @description When true, payloads may not redirect posts to any channel other than channel_id. */
            channel_locked: boolean;
            /** @description Parley's: the key interactive actions on the hook's posts are signed with (`X-Parley-Signature`, HMAC-SHA256; see DoPostAction). A 26-character random secret made with the hook; shown only to those who may manage the hook, and replaced by RegenIncomingHookSigningSecret. Ignored in request bodies. */
            signing_secret: string;
        };
        /** @description A page of incoming webhooks together with the total number the caller may see. */
        IncomingWebhookList: {
            /** @description The incoming webhooks of the requested page. */
            incoming_webhooks: components["schemas"]["IncomingWebhook"][];
            /**
             * Format: int64
             * @description Number of incoming webhooks across all pages.
             */
            total_count: number;
        };
        /** @description The message an integration sends to an incoming webhook. Whatever the encoding of the request (JSON body, form field `payload`, or individual multipart fields), it is decoded into this object and validated against this schema. Either a non-empty `text` or at least one attachment is required. Keys this schema does not name are ignored, so Slack payloads with extra keys are accepted. A null field is not given, as Mattermost's decoding reads it (null `text` with no attachments is therefore "no text"), in a JSON body and in a form's `payload` alike. */
        IncomingWebhookPayload: {
            /** @description Markdown text of the post. May be empty only when attachments are given. Slack conventions are converted (`<!channel>`, `<!here>`, `<!all>`, `<@USERID>`, `<url|label>`). Text longer than 16383 Unicode code points is split into several consecutive posts. */
            text?: string | null;
            /** @description Target channel instead of the hook's default: a channel name (`town-square` or `#town-square`) in the hook's team, or `@username` for the direct channel between that user and the hook's creator. */
            channel?: string | null;
            /** @description Username shown on the post; applies only when ServiceSettings.EnablePostUsernameOverride is on. */
            username?: string | null;
            /** @description Profile picture URL shown on the post; applies only when ServiceSettings.EnablePostIconOverride is on. */
            icon_url?: string | null;
            /** @description Emoji name used as the profile picture instead of icon_url (with or without surrounding colons); applies only when ServiceSettings.EnablePostIconOverride is on. */
            icon_emoji?: string | null;
            /** @description Slack-style message attachments. Null entries are dropped; a post with attachments gets the type `slack_attachment`. */
            attachments?: components["schemas"]["SlackAttachment"][] | null;
            /** @description Post type. It must be blank or start with `custom_`, and be at most 64 characters. */
            type?: string | null;
            /** @description Extra properties stored on the post. The keys from_webhook, override_username, override_icon_url, override_icon_emoji, webhook_display_name and attachments are reserved: the server sets or drops them, whatever the payload says. `card` holds Markdown shown in a side panel. A post's props as stored (these, the attachments and the server's own) larger than 65536 bytes as JSON are rejected (400 `web.incoming_webhook.split_props_length.app_error`). */
            props?: {
                [key: string]: unknown;
            } | null;
            /** @description Id of a root post in the target channel to reply to; empty for a new root post. */
            root_id?: string | null;
            priority?: components["schemas"]["PostPriority"];
        } & ({
            /** @description A non-empty text satisfies the rule. */
            text: unknown;
        } | {
            /** @description At least one attachment satisfies the rule. */
            attachments: unknown[];
        });
        /** @description A message in a channel, either a root post or a reply in a thread. */
        Post: {
            /** @description Unique 26-character id of the post. */
            id: string;
            /**
             * Format: int64
             * @description Creation time, epoch milliseconds.
             */
            create_at: number;
            /**
             * Format: int64
             * @description Time of the last change (edit, pin, reaction or new reply), epoch milliseconds.
             */
            update_at: number;
            /**
             * Format: int64
             * @description Time the message was last edited, epoch milliseconds; 0 if never.
             */
            edit_at?: number;
            /**
             * Format: int64
             * @description Deletion time in epoch milliseconds; 0 unless deleted.
             */
            delete_at: number;
            /** @description Whether the post is pinned to its channel. */
            is_pinned?: boolean;
            /** @description Id of the author. For webhook posts this is the hook's creator. */
            user_id: string;
            /** @description Id of the channel the post is in. */
            channel_id: string;
            /** @description Id of the thread's root post for a reply; empty for a root post. */
            root_id: string;
            /** @description Id of the original post when this is an older version of an edited post; otherwise empty. */
            original_id?: string;
            /** @description Markdown text of the post, at most 16383 Unicode code points. */
            message: string;
            /** @description Post type: empty for an ordinary post, `slack_attachment` for posts carrying attachments, `custom_*` for integration-defined types, `system_*` for messages generated by the server. */
            type: string;
            /** @description Free-form properties. Webhook posts carry `from_webhook: "true"` and `webhook_display_name`, and may carry `override_username`, `override_icon_url`, `override_icon_emoji`, `attachments` and `card`. */
            props: {
                [key: string]: unknown;
            };
            /** @description Space-separated hashtags found in the message. */
            hashtags?: string;
            /** @description Ids of files attached to the post. */
            file_ids?: string[];
            /** @description Client-chosen id echoed back so the client can match the created post to its optimistic copy. */
            pending_post_id?: string;
            /** @description Whether anyone has reacted to the post. */
            has_reactions?: boolean;
            /**
             * Format: int64
             * @description Number of replies in the post's thread.
             */
            reply_count?: number;
            /**
             * Format: int64
             * @description Creation time of the newest reply in the thread, epoch milliseconds; 0 if none.
             */
            last_reply_at?: number;
            /** @description Only on a root post read with collapsedThreads=true, once its thread has had a reply: the users who replied, newest replier last, each as `{id}`, or with collapsedThreadsExtended=true as GetUser returns them (sanitized). */
            participants?: {
                /** @description The participant's user id. */
                id: string;
            }[];
            /** @description Only on a root post read with collapsedThreads=true whose thread the user has a membership of (they wrote the root, replied, were mentioned, or followed it): whether they follow it now. Absent without a membership, as in Mattermost. */
            is_following?: boolean;
            metadata?: components["schemas"]["PostMetadata"];
        };
        /** @description A set of posts with their display order. `order` lists ids newest first; `posts` holds the post objects, which may include thread posts that are not in `order`. */
        PostList: {
            /** @description Post ids in display order, newest first. */
            order: string[];
            /** @description The posts, keyed by post id. */
            posts: {
                [key: string]: components["schemas"]["Post"];
            };
            /** @description Id of the next newer post after this page, for cursor paging; empty if none. */
            next_post_id: string;
            /** @description Id of the next older post before this page, for cursor paging; empty if none. */
            prev_post_id: string;
            /** @description Whether more posts exist beyond this page. */
            has_next?: boolean;
            /**
             * Format: int64
             * @description Creation time of the newest post hidden by plan limits; always 0 on servers without such limits.
             */
            first_inaccessible_post_time?: number;
        };
        /** @description Data derived from or attached to a post. Mattermost also lists embeds, emojis, files, images and reactions here; clients must treat every field as optional. */
        PostMetadata: {
            priority?: components["schemas"]["PostPriority"];
            /** @description The post's reactions, oldest first; present only when it has some (then the post's `has_reactions` is true). */
            reactions?: components["schemas"]["Reaction"][];
            /** @description The FileInfos of the post's files (its file_ids, in that order); absent when the post has none. Deleted files (those of a deleted post) are left out. */
            files?: components["schemas"]["FileInfo"][];
        };
        /** @description Message priority of a post. In a request a null field is not given (Mattermost's fields here are pointers); an incoming webhook's priority without a priority (absent or null) is a 400. */
        PostPriority: {
            /**
             * @description Priority label; the empty string means standard priority (null in a request is not given).
             * @enum {string|null}
             */
            priority?: "" | "important" | "urgent" | null;
            /** @description Whether the author asks recipients to acknowledge the post. */
            requested_ack?: boolean | null;
            /** @description Whether recipients are notified repeatedly until they read the post. */
            persistent_notifications?: boolean | null;
        };
        /** @description One user's emoji reaction to a post. A user has at most one reaction per emoji on a post; reacting again with the same emoji changes nothing. */
        Reaction: {
            /** @description Id of the user who reacted. */
            user_id: string;
            /** @description Id of the post reacted to. */
            post_id: string;
            /** @description Name of the emoji without colons (for example `+1`, `smile`, `white_check_mark`): 1 to 64 ASCII letters, digits, `-`, `+` and `_`. */
            emoji_name: string;
            /**
             * Format: int64
             * @description When the reaction was added, epoch milliseconds.
             */
            create_at: number;
            /**
             * Format: int64
             * @description Time of the reaction's last change, epoch milliseconds.
             */
            update_at: number;
            /**
             * Format: int64
             * @description When the reaction was removed, epoch milliseconds; 0 for a reaction in place.
             */
            delete_at: number;
            /** @description Id of the remote cluster a shared channel's reaction came from; always empty on this server. */
            remote_id: string | null;
            /** @description Id of the post's channel. */
            channel_id: string;
        };
        /** @description The posts a search found, newest first, in the shape of a PostList plus `matches`. Paging follows the request's `page` and `per_page`; `has_next` says whether a further page holds more results. */
        PostSearchResults: {
            /** @description Ids of the posts found, newest first. */
            order: string[];
            /** @description The posts found, keyed by post id. */
            posts: {
                [key: string]: components["schemas"]["Post"];
            };
            /** @description The words each post matched, by post id. Always null: as with Mattermost's database search, clients highlight the search's own words. */
            matches: {
                [key: string]: string[];
            } | null;
            /** @description Always empty for a search. */
            next_post_id: string;
            /** @description Always empty for a search. */
            prev_post_id: string;
            /** @description Whether the next page has results. */
            has_next?: boolean;
            /**
             * Format: int64
             * @description Always 0 on servers without plan limits.
             */
            first_inaccessible_post_time?: number;
        };
        /** @description One of a user's preferences: a value stored under a category and a name. Clients keep their settings here (display settings, theme, which direct channels to show, tutorial steps); a saved post is the preference `flagged_post`/<post id> = "true". */
        Preference: {
            /** @description Id of the user the preference belongs to. */
            user_id: string;
            /** @description The preference's category (1 to 32 bytes), for example `display_settings`, `theme` or `flagged_post`. */
            category: string;
            /** @description The preference's name within its category (at most 32 bytes; may be empty, as a `theme` for every team is). */
            name: string;
            /** @description The value (at most 20000 characters); for the `theme` category a JSON object. */
            value: string;
        };
        /** @description A built-in role: what a user, team member or channel member holding it may do. Parley's roles are built in and cannot be changed; each lists the permissions Parley grants with it, in Mattermost's permission names. */
        Role: {
            /** @description Id of the role, the same on every Parley server (derived from its name). */
            id: string;
            /** @description The role's name, as it appears in a user's, team member's or channel member's `roles`. */
            name: string;
            /** @description Mattermost's translation key of the role's display name (for example `authentication.roles.global_user.name`). */
            display_name: string;
            /** @description Mattermost's translation key of the role's description. */
            description: string;
            /**
             * Format: int64
             * @description Always 0 (built in, never created).
             */
            create_at: number;
            /**
             * Format: int64
             * @description Always 0 (built in, never changed).
             */
            update_at: number;
            /**
             * Format: int64
             * @description Always 0.
             */
            delete_at: number;
            /** @description The permissions the role grants, in Mattermost's names. */
            permissions: string[];
            /** @description Whether the role is one of the scheme's (system, team and channel user and admin roles), as in Mattermost. */
            scheme_managed: boolean;
            /** @description Always true. */
            built_in: boolean;
        };
        /** @description One of a user's sidebar categories on a team, with the channels it holds, in their order (Mattermost's SidebarCategoryWithChannels). Every channel of the user on the team, and every direct and group message channel of theirs, is in exactly one category: one not placed anywhere is in `channels` (public and private channels) or in `direct_messages` (direct and group messages). An archived channel is listed only where the user placed it. */
        SidebarCategory: {
            /** @description The category's id: `{type}_{user_id}_{team_id}` for the three default categories, a 26-character id for a custom one. */
            id: string;
            /** @description Id of the user whose sidebar it is. */
            user_id: string;
            /** @description Id of the team it belongs to. */
            team_id: string;
            /**
             * Format: int64
             * @description Its place among the user's categories on the team (0, 10, 20, ... in the sidebar's order).
             */
            sort_order: number;
            /**
             * @description How clients sort its channels: `manual` (as channel_ids lists them), `alpha` (by display name), `recent` (by last post; the default of direct_messages), or "" (the default of the others: alphabetical until the user arranges them by hand).
             * @enum {string}
             */
            sorting: "" | "manual" | "alpha" | "recent";
            /**
             * @description The category's kind; only `custom` categories are created, renamed and deleted by users.
             * @enum {string}
             */
            type: "favorites" | "channels" | "direct_messages" | "custom";
            /** @description Its name (at most 255 characters); clients show their own translation for the default categories ("Favorites", "Channels", "Direct Messages"). */
            display_name: string;
            /** @description Whether the category is muted; muting or unmuting it mutes or unmutes its channels for the user. */
            muted: boolean;
            /** @description Whether the sidebar shows it collapsed. */
            collapsed: boolean;
            /** @description Ids of its channels, in order. */
            channel_ids: string[];
        };
        /**
         * @description A sidebar category as clients send it to create or update one (the whole category; a field left out or null reads as its zero value, as Mattermost decodes it). `id`, `type` and `sort_order` are read-only (the stored ones are kept); `display_name` changes only for custom categories; the channels of direct_messages and its `muted` cannot be set (its channels are always the user's direct and group messages not placed elsewhere).
         * @example {
         *       "user_id": "9x3pbdc5yjfexm8crfmnrmd1ec",
         *       "team_id": "4xp9fdt77pncbef59f4k1qe83o",
         *       "display_name": "Projects",
         *       "sorting": "manual",
         *       "channel_ids": [
         *         "hkmkm1wzr7fk8fj6tkdu6cwngw"
         *       ]
         *     }
         */
        SidebarCategoryInput: {
            /** @description The category's id (UpdateSidebarCategoriesForTeamForUser reads it; the others take the path's). */
            id?: string | null;
            /** @description The path's user id (CreateSidebarCategoryForTeamForUser and UpdateSidebarCategoryForTeamForUser require it). */
            user_id?: string | null;
            /** @description The path's team id (CreateSidebarCategoryForTeamForUser and UpdateSidebarCategoryForTeamForUser require it). */
            team_id?: string | null;
            /**
             * Format: int64
             * @description Ignored (UpdateSidebarCategoryOrderForTeamForUser sets the order).
             */
            sort_order?: number | null;
            /** @description "", `manual`, `alpha` or `recent`; anything else is 400 `api.context.invalid_param.app_error`. */
            sorting?: string | null;
            /** @description Ignored (a created category is `custom`; an updated one keeps its type). */
            type?: string | null;
            /** @description The name of a custom category: 1 to 255 characters (else 400 `api.context.invalid_param.app_error`); ignored for the default categories, which cannot be renamed. */
            display_name?: string | null;
            /** @description Whether the category (and with it its channels, for this user) is muted; ignored for direct_messages. */
            muted?: boolean | null;
            /** @description Whether the sidebar shows it collapsed. */
            collapsed?: boolean | null;
            /** @description Its channels, in order. Ids that are not channels of the user on the team (or their direct and group messages) are dropped, and repeats are dropped, as Mattermost does. Created: the channels leave the category they were in. Updated: see UpdateSidebarCategoriesForTeamForUser. */
            channel_ids?: string[] | null;
        };
        /** @description A user's sidebar categories on a team, and their order. */
        OrderedSidebarCategories: {
            /** @description The categories, in the sidebar's order. */
            categories: components["schemas"]["SidebarCategory"][];
            /** @description The categories' ids, in the sidebar's order. */
            order: string[];
        };
        /** @description A Slack-style message attachment, stored on the post in props.attachments. A null entry in the attachments array is accepted and dropped. Unknown keys are allowed and ignored. A null field is not given (Mattermost decodes it to its zero value, which it treats as absent), except a field's `short`, which must be a boolean or "true"/"false". */
        SlackAttachment: {
            /**
             * Format: int64
             * @description Numeric id of the attachment, used by interactive actions.
             */
            id?: number | null;
            /** @description Plain-text summary for clients that cannot render attachments. */
            fallback?: string | null;
            /** @description Colour of the side bar, `good`, `warning`, `danger` or a hex colour such as `#36a64f`. */
            color?: string | null;
            /** @description Text shown above the attachment; Slack mention syntax is converted. */
            pretext?: string | null;
            /** @description Name of the author shown at the top of the attachment. */
            author_name?: string | null;
            /** @description URL the author name links to. */
            author_link?: string | null;
            /** @description URL of a small icon shown next to the author name. */
            author_icon?: string | null;
            /** @description Bold title of the attachment. */
            title?: string | null;
            /** @description URL the title links to. */
            title_link?: string | null;
            /** @description Main Markdown text of the attachment; `<url|label>` links and Slack mentions are converted. */
            text?: string | null;
            /** @description Short label/value pairs shown as a table. Null entries are dropped. */
            fields?: ({
                /** @description Label of the field. */
                title?: string | null;
                /** @description Value of the field; a string, number or boolean. The server stores it as a string (numbers and booleans are converted). */
                value?: unknown;
                /** @description Whether the field is narrow enough to sit next to another one. A boolean, or the string `true` or `false`. */
                short?: boolean | string;
            } | null)[] | null;
            /** @description URL of an image shown inside the attachment. */
            image_url?: string | null;
            /** @description URL of a thumbnail shown at the side of the attachment. */
            thumb_url?: string | null;
            /** @description Small text shown at the bottom of the attachment. */
            footer?: string | null;
            /** @description URL of a small icon shown next to the footer. */
            footer_icon?: string | null;
            /** @description Timestamp shown in the footer, epoch seconds, as a number or a string. */
            ts?: unknown;
            /** @description Interactive buttons or menus (PostAction). Their `integration` is kept by the server and never shown to clients. */
            actions?: components["schemas"]["PostAction"][] | null;
        } | null;
        /** @description An interactive action of a message attachment (`props.attachments[].actions[]`): a button, or a menu of static options (or of the team's users or channels, `data_source`). Checked when a post is made or edited (Mattermost only logs a warning; Parley refuses with 400): `name` required; `type` `button` (the default) or `select`; a button has no options; a select has `options` or a `data_source`, not both; every option a non-empty `text` and `value`; `style` one of default, primary, success, good, warning, danger or a hex colour; `id`, when given, 1 to 64 letters and digits (the only ids Mattermost's route can click), generated when empty; `integration` required, its `url` http(s). At most 50 actions per post and 100 options per menu. Clients never see `integration`: the server keeps it apart from the post and no read returns it. `cookie` is the server's and is dropped from input. */
        PostAction: {
            /** @description The action's id (letters and digits); generated when empty. DoPostAction takes it in the path. */
            id?: string;
            /** @description `button` (default) or `select`. */
            type?: string;
            /** @description The button's label, or the menu's placeholder. Required. */
            name?: string;
            /** @description Shown, but cannot be clicked. */
            disabled?: boolean;
            /** @description default, primary, success, good, warning, danger, or a hex colour such as `#3f9f2f`. */
            style?: string;
            /** @description For a select without options, `users` or `channels`. */
            data_source?: string;
            /** @description The options of a static select menu. */
            options?: {
                /** @description What the menu shows. */
                text?: string;
                /** @description What the integration receives as `context.selected_option`. */
                value?: string;
            }[];
            /** @description The value of the option selected at first. */
            default_option?: string;
            /** @description Input only, never returned: where a click is sent (`url`, http or https) and the `context` object sent back with it. */
            integration?: {
                /** @description The integration's URL (checked against the address rule when called). */
                url?: string;
                /** @description Any JSON object; sent back as the call's `context`. */
                context?: {
                    [key: string]: unknown;
                };
            };
        } & {
            [key: string]: unknown;
        };
        /** @description Confirmation returned by operations that have nothing else to report. */
        StatusOK: {
            /**
             * @description Always the upper-case string `OK`.
             * @example OK
             */
            status: string;
        };
        /** @description Health report of the server. */
        SystemStatusResponse: {
            /**
             * @description `OK` when the server is healthy, `UNHEALTHY` otherwise.
             * @example OK
             */
            status: string;
            /** @description `OK` or `UNHEALTHY`; present only when get_server_status=true. */
            database_status?: string;
            /** @description `OK` or `UNHEALTHY`; present only when get_server_status=true. */
            filestore_status?: string;
            /** @description Whether the server process runs as root; present only for system admins with get_server_status=true. */
            root_status?: boolean;
            /** @description `true`, `false` or `unknown`: whether push notifications can reach device_id; present only with device_id. */
            CanReceiveNotifications?: string;
            /** @description Name of the search engine in use. */
            ActiveSearchBackend?: string;
            /** @description Latest Android app version the server recommends; empty if not configured. */
            AndroidLatestVersion?: string;
            /** @description Oldest Android app version the server supports; empty if not configured. */
            AndroidMinVersion?: string;
            /** @description Latest iOS app version the server recommends; empty if not configured. */
            IosLatestVersion?: string;
            /** @description Oldest iOS app version the server supports; empty if not configured. */
            IosMinVersion?: string;
            /** @description Latest desktop app version the server recommends; empty if not configured. */
            DesktopLatestVersion?: string;
            /** @description Oldest desktop app version the server supports; empty if not configured. */
            DesktopMinVersion?: string;
        };
        /** @description A team: a group of users with its own channels. `email` and `invite_id` are blanked for callers who cannot manage the team. */
        Team: {
            /** @description Unique 26-character id of the team. */
            id: string;
            /**
             * Format: int64
             * @description Creation time, epoch milliseconds.
             */
            create_at: number;
            /**
             * Format: int64
             * @description Time of the last change, epoch milliseconds.
             */
            update_at: number;
            /**
             * Format: int64
             * @description Archive time in epoch milliseconds; 0 while the team is active.
             */
            delete_at: number;
            /** @description Name shown to users. */
            display_name: string;
            /** @description Unique URL name of the team (lower case, digits and dashes). */
            name: string;
            /** @description Free-text description of the team. */
            description?: string;
            /** @description Contact address of the team administrator; blank for callers who cannot manage the team. */
            email?: string;
            /**
             * @description `O` for an open team anyone may join, `I` for an invite-only team.
             * @enum {string}
             */
            type: "O" | "I";
            /** @description Name of the company that owns the team. */
            company_name?: string;
            /** @description E-mail domains allowed on the team, separated by commas, spaces or `@` (letter case ignored); empty means any domain. A user joining or added to the team must have an address ending in `@` and one of them (bots are exempt), else `400 api.team.join_user_to_team.allowed_domains.app_error`; members already on the team stay. */
            allowed_domains?: string;
            /** @description Id used in invitation links; blank for callers who cannot manage the team. */
            invite_id?: string;
            /** @description Whether anyone may join; kept in step with `type` (true exactly when type is `O`). */
            allow_open_invite?: boolean;
            /**
             * Format: int64
             * @description Time the team icon was last changed, epoch milliseconds.
             */
            last_team_icon_update?: number;
            /** @description Id of the permission scheme applied to the team, if any. */
            scheme_id?: string | null;
            /** @description Whether membership is managed by synchronised groups. */
            group_constrained?: boolean | null;
            /** @description Id of the data-retention policy applied to the team, if any. */
            policy_id?: string | null;
            /** @description Whether the team was archived because of plan limits. */
            cloud_limits_archived?: boolean;
        };
        /** @description A page of teams together with the total number of teams the caller may see. */
        TeamList: {
            /** @description The teams of the requested page. */
            teams: components["schemas"]["Team"][];
            /**
             * Format: int64
             * @description Number of teams across all pages.
             */
            total_count: number;
        };
        /** @description Membership of one user in one team. */
        TeamMember: {
            /** @description Id of the team. */
            team_id: string;
            /** @description Id of the member. */
            user_id: string;
            /** @description Space-separated team roles, including those implied by the scheme flags (for example `team_user`). */
            roles: string;
            /**
             * Format: int64
             * @description Time the user left or was removed from the team, epoch milliseconds; 0 for a current member.
             */
            delete_at: number;
            /** @description Whether the member has the team's user role. */
            scheme_user?: boolean;
            /** @description Whether the member has the team's admin role. */
            scheme_admin?: boolean;
            /** @description Whether the member is a guest of the team. */
            scheme_guest?: boolean;
            /** @description Space-separated roles granted explicitly rather than through the scheme flags. */
            explicit_roles?: string;
        };
        /** @description Member counts of one team, as GetTeamStats answers. */
        TeamStats: {
            /** @description Id of the team. */
            team_id: string;
            /**
             * Format: int64
             * @description Current members of the team, deactivated users included.
             */
            total_member_count: number;
            /**
             * Format: int64
             * @description Current members of the team whose accounts are active.
             */
            active_member_count: number;
        };
        /** @description A user's unread counts in one team, summed over their memberships of the team's channels that are not archived. Messages of a channel whose notify_props.mark_unread is `mention` count only as mentions. */
        TeamUnread: {
            /** @description Id of the team. */
            team_id: string;
            /**
             * Format: int64
             * @description Posts not yet seen, replies included.
             */
            msg_count: number;
            /**
             * Format: int64
             * @description Mentions not yet seen, replies included.
             */
            mention_count: number;
            /**
             * Format: int64
             * @description Mentions not yet seen in root posts.
             */
            mention_count_root: number;
            /**
             * Format: int64
             * @description Root posts not yet seen.
             */
            msg_count_root: number;
            /**
             * Format: int64
             * @description Unread followed threads (GetTeamsUnreadForUser with include_collapsed_threads=true; else 0).
             */
            thread_count: number;
            /**
             * Format: int64
             * @description Unread mentions in followed threads (with include_collapsed_threads=true; else 0).
             */
            thread_mention_count: number;
            /**
             * Format: int64
             * @description Unread mentions in followed threads whose root is urgent (with include_collapsed_threads=true; else 0).
             */
            thread_urgent_mention_count: number;
        };
        /** @description A user account as the server returns it. Secrets (password, MFA secret) are never included and auth_data is always blank. When the caller looks at another user, account-private fields are cleared (notify_props becomes empty, email_verified and allow_marketing false, counters 0) and email / first_name / last_name are blank unless PrivacySettings.ShowEmailAddress / ShowFullName allow them or the caller is a system admin. */
        User: {
            /** @description Unique 26-character id of the user. */
            id: string;
            /**
             * Format: int64
             * @description Creation time, epoch milliseconds.
             */
            create_at: number;
            /**
             * Format: int64
             * @description Time of the last change to the account, epoch milliseconds.
             */
            update_at: number;
            /**
             * Format: int64
             * @description Deactivation time in epoch milliseconds; 0 while the account is active.
             */
            delete_at: number;
            /** @description Unique login name, lower case. */
            username: string;
            /** @description External authentication data; always returned empty. */
            auth_data?: string;
            /** @description Authentication service of the account; empty for email/password accounts. */
            auth_service?: string;
            /** @description E-mail address, lower case. Blank when privacy settings hide it from the caller. */
            email?: string;
            /** @description Whether the e-mail address has been verified. */
            email_verified?: boolean;
            /** @description Optional nickname shown in clients. */
            nickname?: string;
            /** @description Given name. Blank when privacy settings hide it from the caller. */
            first_name?: string;
            /** @description Family name. Blank when privacy settings hide it from the caller. */
            last_name?: string;
            /** @description Job title or role in the organisation. */
            position?: string;
            /**
             * @description Space-separated system roles, for example `system_user` or `system_admin system_user`.
             * @example system_user
             */
            roles: string;
            /** @description Whether the user agreed to receive marketing e-mail. */
            allow_marketing?: boolean;
            /** @description Free-form string properties attached to the user by clients. */
            props?: {
                [key: string]: string;
            };
            /** @description Notification preferences as a string map (email, push, desktop, desktop_sound, mention_keys, channel, first_name, comments, ...). Empty when the caller looks at another user. */
            notify_props?: {
                [key: string]: string;
            };
            /**
             * Format: int64
             * @description Time of the last password change, epoch milliseconds.
             */
            last_password_update?: number;
            /**
             * Format: int64
             * @description Time of the last profile picture change, epoch milliseconds.
             */
            last_picture_update?: number;
            /** @description Mattermost's count of consecutive failed logins. Always 0 here: Parley counts failed logins apart from the profile (the same way for unknown login ids), so the profile does not show them. */
            failed_attempts?: number;
            /** @description Preferred language, for example `en`. */
            locale?: string;
            /** @description Time zone settings as a string map: useAutomaticTimezone ("true" or "false"), automaticTimezone and manualTimezone. */
            timezone?: {
                [key: string]: string;
            };
            /** @description Whether multi-factor authentication is enabled for the account. */
            mfa_active?: boolean;
            /**
             * Format: int64
             * @description Time of the user's last activity, epoch milliseconds.
             */
            last_activity_at?: number;
            /** @description Whether the account is a bot. */
            is_bot?: boolean;
            /** @description Description of the bot, for bot accounts. */
            bot_description?: string;
            /** @description Whether the welcome e-mail was suppressed when the account was created. */
            disable_welcome_email?: boolean;
            /** @description Id of the terms of service the user last accepted. */
            terms_of_service_id?: string;
            /**
             * Format: int64
             * @description Time the user accepted those terms of service, epoch milliseconds.
             */
            terms_of_service_create_at?: number;
        };
        /** @description Users whose names start with the search term, as AutocompleteUsers answers: with `in_channel`, the channel's members in `users` and the team's other members in `out_of_channel`; otherwise everyone found in `users`. */
        UserAutocomplete: {
            /** @description The users found (members of the channel, when `in_channel` was given), sorted by username. */
            users: components["schemas"]["User"][];
            /** @description Only with `in_channel`; members of the team who are not in the channel, sorted by username. */
            out_of_channel?: components["schemas"]["User"][];
        };
        /** @description A personal access token. It authenticates exactly like a session token (`Authorization: Bearer <token>`) and stays valid until revoked or until expires_at. The secret `token` is returned only once, on creation; listed tokens have no `token`. */
        UserAccessToken: {
            /** @description Id of the token record (not the secret). */
            id: string;
            /** @description The secret token value, only in CreateUserAccessToken's answer. Store it; it cannot be retrieved again. */
            token?: string;
            /** @description Id of the user the token acts as. */
            user_id: string;
            /** @description Description given when the token was created. */
            description: string;
            /** @description Whether the token can currently be used. */
            is_active: boolean;
            /**
             * Format: int64
             * @description Expiry time in epoch milliseconds; 0 means the token does not expire.
             */
            expires_at?: number;
        };
        /** @description A thread (a root post and its replies) as one user follows it: Mattermost's ThreadResponse. Unread replies are the live replies created after `last_viewed_at`; unread mentions are the replies since then that mentioned the user. */
        UserThread: {
            /** @description The thread's id, which is its root post's id. */
            id: string;
            /**
             * Format: int64
             * @description Live (not deleted) replies in the thread.
             */
            reply_count: number;
            /**
             * Format: int64
             * @description Creation time of the newest live reply, epoch milliseconds; 0 if none.
             */
            last_reply_at: number;
            /**
             * Format: int64
             * @description Until when the user has read the thread, epoch milliseconds.
             */
            last_viewed_at: number;
            /** @description The users who replied, oldest replier first (the root's author only once they reply). Each is `{id}` alone, or with `extended=true` the user as GetUser returns them (sanitized). */
            participants: {
                /** @description The participant's user id. */
                id: string;
            }[];
            post: components["schemas"]["Post"];
            /**
             * Format: int64
             * @description Live replies created after last_viewed_at.
             */
            unread_replies: number;
            /**
             * Format: int64
             * @description Replies since last_viewed_at that mentioned the user.
             */
            unread_mentions: number;
            /** @description The root post asked for urgent priority. */
            is_urgent: boolean;
            /**
             * Format: int64
             * @description The root post's deletion time; 0 while it is live.
             */
            delete_at: number;
        };
        /** @description A page of the threads a user follows in a team (direct and group channels included), and their totals: Mattermost's Threads. */
        UserThreadList: {
            /**
             * Format: int64
             * @description Threads followed (0 with threadsOnly; with unread=true, the unread ones).
             */
            total: number;
            /**
             * Format: int64
             * @description Followed threads with replies newer than their last_viewed_at (0 with threadsOnly).
             */
            total_unread_threads: number;
            /**
             * Format: int64
             * @description Unread mentions summed over the followed threads (0 with threadsOnly).
             */
            total_unread_mentions: number;
            /**
             * Format: int64
             * @description Unread mentions in threads whose root post is urgent (0 with threadsOnly).
             */
            total_unread_urgent_mentions: number;
            /** @description The page of threads (empty with totalsOnly), newest reply first (oldest first after an `after` cursor). */
            threads: components["schemas"]["UserThread"][];
        };
        /** @description Who an event was addressed to, as Mattermost describes it. Every key is present (empty when unused); Parley has already applied it: a client receives only what it may see. */
        WebSocketBroadcast: {
            /** @description Users left out, as a map of user id to true; null when nobody is. */
            omit_users: {
                [key: string]: boolean;
            } | null;
            /** @description Set when the event is for one user only. */
            user_id: string;
            /** @description Set when the event is for a channel's members. */
            channel_id: string;
            /** @description Set when the event is for a team's members. */
            team_id: string;
            /** @description Set when the event is for one connection only. */
            connection_id: string;
            /** @description A connection left out. */
            omit_connection_id: string;
            /** @description This copy went to users without manage_system (a copy with more went to system admins). */
            contains_sanitized_data?: boolean;
            /** @description This copy went to system admins only. */
            contains_sensitive_data?: boolean;
        };
        /** @description The first event on a connection (seq 0): a new connection, or one whose missed events could not all be replayed (refetch). */
        WebSocketEvent_Hello: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "hello";
            /** @description What happened. */
            data: {
                /** @description <version>.<build>.<config hash>.<licensed>, as in X-Version-Id. */
                server_version: string;
                /** @description The id to send back as connection_id when reconnecting. */
                connection_id: string;
                /** @description The server's host name (empty in Parley). */
                server_hostname?: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A new post in a channel the recipient belongs to (one per part of a split webhook message). */
        WebSocketEvent_Posted: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "posted";
            /** @description What happened. */
            data: {
                /** @description The channel's display name; for a direct channel, the sender ("@name"). */
                channel_display_name: string;
                /** @description The channel's URL name. */
                channel_name: string;
                /**
                 * @description O public, P private, D direct, G group.
                 * @enum {string}
                 */
                channel_type: "O" | "P" | "D" | "G";
                /** @description The Post, as a JSON string (Mattermost's shape). */
                post: string;
                /** @description "@username", or a webhook's override name when overrides are on. */
                sender_name: string;
                /** @description Whether the post marked its author online (false for webhook posts). */
                set_online: boolean;
                /** @description The channel's team; empty for direct channels. */
                team_id: string;
                /**
                 * @description "true" when the post has files attached (absent otherwise).
                 * @enum {string}
                 */
                otherFile?: "true";
                /**
                 * @description "true" when one of the post's files is an image (absent otherwise).
                 * @enum {string}
                 */
                image?: "true";
                /** @description Only when the recipient is mentioned, a JSON string of an array holding the recipient's own user id. */
                mentions?: string;
                /** @description Only with collapsed threads (ServiceSettings.CollapsedThreads), for a reply, when the recipient follows its thread (and is not its author): a JSON string of an array holding the recipient's own user id. */
                followers?: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A post was edited (or pinned, or had its props changed). */
        WebSocketEvent_PostEdited: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "post_edited";
            /** @description What happened. */
            data: {
                /** @description The Post as it is now, as a JSON string. */
                post: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A post was deleted. System admins get a copy that also says who deleted it. */
        WebSocketEvent_PostDeleted: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "post_deleted";
            /** @description What happened. */
            data: {
                /** @description The deleted Post, as a JSON string. */
                post: string;
                /** @description Who deleted it (system admins' copy only). */
                delete_by?: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description Someone is typing in a channel (never sent to the typer). */
        WebSocketEvent_Typing: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "typing";
            /** @description What happened. */
            data: {
                /** @description The thread's root post when typing a reply, else empty. */
                parent_id: string;
                /** @description Who is typing. */
                user_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The recipient viewed a channel (on any of their clients); older clients read this one. */
        WebSocketEvent_ChannelViewed: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "channel_viewed";
            /** @description What happened. */
            data: {
                /** @description The channel now read. */
                channel_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The recipient viewed channels (on any of their clients); current clients read this one. */
        WebSocketEvent_MultipleChannelsViewed: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "multiple_channels_viewed";
            /** @description What happened. */
            data: {
                /** @description Channel id to the time it was viewed, epoch milliseconds. */
                channel_times: {
                    [key: string]: number;
                };
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The recipient created a channel. */
        WebSocketEvent_ChannelCreated: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "channel_created";
            /** @description What happened. */
            data: {
                /** @description The new channel. */
                channel_id: string;
                /** @description Its team. */
                team_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A direct channel with the recipient was created. */
        WebSocketEvent_DirectAdded: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "direct_added";
            /** @description What happened. */
            data: {
                /** @description Who opened it. */
                creator_id: string;
                /** @description The other member. */
                teammate_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A user joined a channel: to its members, and to the user. */
        WebSocketEvent_UserAdded: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "user_added";
            /** @description What happened. */
            data: {
                /** @description Who joined. */
                user_id: string;
                /** @description The channel's team. */
                team_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A user left or was removed from a channel: to its remaining members (user_id), and to the user (channel_id). */
        WebSocketEvent_UserRemoved: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "user_removed";
            /** @description What happened. */
            data: {
                /** @description Who left (the members' copy). */
                user_id?: string;
                /** @description The channel left (the removed user's copy). */
                channel_id?: string;
                /** @description Who removed them (themselves when they left). */
                remover_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The recipient was added to a team. */
        WebSocketEvent_AddedToTeam: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "added_to_team";
            /** @description What happened. */
            data: {
                /** @description The team. */
                team_id: string;
                /** @description The recipient. */
                user_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A user left or was removed from a team: to its members and to the user. */
        WebSocketEvent_LeaveTeam: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "leave_team";
            /** @description What happened. */
            data: {
                /** @description The team. */
                team_id: string;
                /** @description Who left. */
                user_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description An account was created. */
        WebSocketEvent_NewUser: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "new_user";
            /** @description What happened. */
            data: {
                /** @description The new user. */
                user_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A user changed; the profile shown as the recipient may see it. */
        WebSocketEvent_UserUpdated: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "user_updated";
            /** @description What happened. */
            data: {
                user: components["schemas"]["User"];
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The configuration changed (to system admins): the new client configuration. */
        WebSocketEvent_ConfigChanged: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "config_changed";
            /** @description What happened. */
            data: {
                /** @description The client configuration (GetClientConfig's format=old map). */
                config: {
                    [key: string]: string;
                };
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The recipient's own status changed. */
        WebSocketEvent_StatusChange: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "status_change";
            /** @description What happened. */
            data: {
                /**
                 * @description The new status.
                 * @enum {string}
                 */
                status: "online" | "away" | "dnd" | "offline";
                /** @description The recipient. */
                user_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description Someone reacted to a post. Sent to the members of the post's channel. The post's `update_at` moves too, but no post_edited is sent: clients add the reaction to the post they have. */
        WebSocketEvent_ReactionAdded: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "reaction_added";
            /** @description What happened. */
            data: {
                /** @description The Reaction, as a JSON string. */
                reaction: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description Someone took back a reaction (or a system admin removed it). Sent to the members of the post's channel. The post's `update_at` moves too, but no post_edited is sent: clients remove the reaction from the post they have. */
        WebSocketEvent_ReactionRemoved: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "reaction_removed";
            /** @description What happened. */
            data: {
                /** @description The Reaction as removed (its delete_at set), as a JSON string. */
                reaction: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A channel's settings changed (name, header, purpose): to its members. */
        WebSocketEvent_ChannelUpdated: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "channel_updated";
            /** @description What happened. */
            data: {
                /** @description The Channel as it is now, as a JSON string. */
                channel: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A channel was archived: for a public channel to the team's members, for a private one to its members. */
        WebSocketEvent_ChannelDeleted: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "channel_deleted";
            /** @description What happened. */
            data: {
                /** @description The archived channel. */
                channel_id: string;
                /**
                 * Format: int64
                 * @description When it was archived, epoch milliseconds.
                 */
                delete_at: number;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description An archived channel was restored: for a public channel to the team's members, for a private one to its members. */
        WebSocketEvent_ChannelRestored: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "channel_restored";
            /** @description What happened. */
            data: {
                /** @description The restored channel. */
                channel_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The recipient's membership of a channel changed (its roles): to that member only. */
        WebSocketEvent_ChannelMemberUpdated: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "channel_member_updated";
            /** @description What happened. */
            data: {
                /** @description The ChannelMember as it is now, as a JSON string (the key is camelCase, as Mattermost sends it). */
                channelMember: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The recipient's system roles changed: to that user only. */
        WebSocketEvent_UserRoleUpdated: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "user_role_updated";
            /** @description What happened. */
            data: {
                /** @description The user. */
                user_id: string;
                /** @description The user's system roles now, space-separated. */
                roles: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The recipient's roles in a team changed (UpdateTeamMemberRoles): to that member only. */
        WebSocketEvent_MemberroleUpdated: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "memberrole_updated";
            /** @description What happened. */
            data: {
                /** @description The team membership now (a TeamMember), as a JSON string, as Mattermost sends it. */
                member: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A team's settings changed: to its members. */
        WebSocketEvent_UpdateTeam: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "update_team";
            /** @description What happened. */
            data: {
                /** @description The Team as it is now, as a JSON string, without its email and invite id. */
                team: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The user's preferences were saved (on any of their clients). Sent to the user's own sockets. */
        WebSocketEvent_PreferencesChanged: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "preferences_changed";
            /** @description What happened. */
            data: {
                /** @description The saved preferences, as a JSON array string. */
                preferences: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description Some of the user's preferences were deleted (on any of their clients). Sent to the user's own sockets. */
        WebSocketEvent_PreferencesDeleted: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "preferences_deleted";
            /** @description What happened. */
            data: {
                /** @description The deleted preferences, as a JSON array string. */
                preferences: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A thread the user follows changed (a new reply, or a deleted reply's mention taken back). Sent to the user's own sockets, with the thread as they follow it; broadcast.team_id is the channel's team ('' in direct and group channels). */
        WebSocketEvent_ThreadUpdated: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "thread_updated";
            /** @description What happened. */
            data: {
                /** @description The thread (a UserThread with extended participants), as a JSON string. */
                thread: string;
                /**
                 * Format: int64
                 * @description The user's unread replies before this change (0 for a thread they just started following).
                 */
                previous_unread_replies: number;
                /**
                 * Format: int64
                 * @description The user's unread mentions before this change (0 for a thread they just started following).
                 */
                previous_unread_mentions: number;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The user started or stopped following a thread. Sent to the user's own sockets. */
        WebSocketEvent_ThreadFollowChanged: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "thread_follow_changed";
            /** @description What happened. */
            data: {
                /** @description The thread's id (its root post's id). */
                thread_id: string;
                /** @description True when now following, false when no longer. */
                state: boolean;
                /**
                 * Format: int64
                 * @description The thread's live replies (0 before its first reply).
                 */
                reply_count: number;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The user's read state of a thread changed (UpdateThreadReadForUser, SetThreadUnreadByPostId), or, with empty data, of all their threads in broadcast.team_id (UpdateThreadsReadForUser). Sent to the user's own sockets. */
        WebSocketEvent_ThreadReadChanged: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "thread_read_changed";
            /** @description What changed; empty when every thread of the team was read. */
            data: {
                /** @description The thread's id. */
                thread_id?: string;
                /**
                 * Format: int64
                 * @description Until when the thread is now read, epoch milliseconds.
                 */
                timestamp?: number;
                /**
                 * Format: int64
                 * @description Unread replies now.
                 */
                unread_replies?: number;
                /**
                 * Format: int64
                 * @description Unread mentions now.
                 */
                unread_mentions?: number;
                /**
                 * Format: int64
                 * @description Unread replies before.
                 */
                previous_unread_replies?: number;
                /**
                 * Format: int64
                 * @description Unread mentions before.
                 */
                previous_unread_mentions?: number;
                /** @description The thread's channel. */
                channel_id?: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A sidebar category was created (on any of the user's clients). Sent to the user's own sockets; broadcast.team_id names its team. */
        WebSocketEvent_SidebarCategoryCreated: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "sidebar_category_created";
            /** @description What happened. */
            data: {
                /** @description Id of the new category (clients fetch it). */
                category_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description Sidebar categories changed. Sent to the user's own sockets. With updatedCategories (and broadcast.team_id), the categories as they are now; without (after favorite_channel preferences were saved or deleted, as Mattermost sends it), clients fetch their categories again. */
        WebSocketEvent_SidebarCategoryUpdated: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "sidebar_category_updated";
            /** @description What happened. */
            data: {
                /** @description The changed categories (SidebarCategory objects), as a JSON array string. */
                updatedCategories?: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A custom sidebar category was deleted; its channels went back to the default categories. Sent to the user's own sockets; broadcast.team_id names its team. */
        WebSocketEvent_SidebarCategoryDeleted: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "sidebar_category_deleted";
            /** @description What happened. */
            data: {
                /** @description Id of the deleted category. */
                category_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The order of the user's sidebar categories on a team changed. Sent to the user's own sockets; broadcast.team_id names the team. */
        WebSocketEvent_SidebarCategoryOrderUpdated: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "sidebar_category_order_updated";
            /** @description What happened. */
            data: {
                /** @description The category ids, in the new order. */
                order: string[];
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description A post for the recipient's eyes only (a slash command's reply or error, a warning), shown in the channel it names and never stored: no REST read returns it and it is gone on reload. Sent to every socket of that one user only. */
        WebSocketEvent_EphemeralMessage: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "ephemeral_message";
            /** @description What happened. */
            data: {
                /** @description The Post, as a JSON string (Mattermost's shape), of type `system_ephemeral`. */
                post: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description The recipient marked a channel unread from a post on (SetPostUnread). Sent to that user only; the broadcast names the channel (`channel_id`) and its team. */
        WebSocketEvent_PostUnread: {
            /**
             * @description The event's name.
             * @enum {string}
             */
            event: "post_unread";
            /** @description The membership's new unread state. */
            data: {
                /**
                 * Format: int64
                 * @description Messages read.
                 */
                msg_count: number;
                /**
                 * Format: int64
                 * @description Root posts read.
                 */
                msg_count_root: number;
                /**
                 * Format: int64
                 * @description Unread mentions.
                 */
                mention_count: number;
                /**
                 * Format: int64
                 * @description Unread mentions in root posts.
                 */
                mention_count_root: number;
                /**
                 * Format: int64
                 * @description Unread urgent mentions (0).
                 */
                urgent_mention_count: number;
                /**
                 * Format: int64
                 * @description The post's create_at - 1.
                 */
                last_viewed_at: number;
                /** @description The post marked unread from. */
                post_id: string;
            };
            broadcast: components["schemas"]["WebSocketBroadcast"];
            /**
             * Format: int64
             * @description This connection's number for the event, one more than the previous event's (hello is 0).
             */
            seq: number;
        };
        /** @description An event the server sends on /api/v4/websocket: the envelope of Mattermost's WebSocket API (`event`, `data`, `broadcast`, `seq`), one schema per event name. */
        WebSocketEvent: components["schemas"]["WebSocketEvent_Hello"] | components["schemas"]["WebSocketEvent_Posted"] | components["schemas"]["WebSocketEvent_PostEdited"] | components["schemas"]["WebSocketEvent_PostDeleted"] | components["schemas"]["WebSocketEvent_Typing"] | components["schemas"]["WebSocketEvent_ChannelViewed"] | components["schemas"]["WebSocketEvent_MultipleChannelsViewed"] | components["schemas"]["WebSocketEvent_ChannelCreated"] | components["schemas"]["WebSocketEvent_DirectAdded"] | components["schemas"]["WebSocketEvent_UserAdded"] | components["schemas"]["WebSocketEvent_UserRemoved"] | components["schemas"]["WebSocketEvent_AddedToTeam"] | components["schemas"]["WebSocketEvent_LeaveTeam"] | components["schemas"]["WebSocketEvent_NewUser"] | components["schemas"]["WebSocketEvent_UserUpdated"] | components["schemas"]["WebSocketEvent_ConfigChanged"] | components["schemas"]["WebSocketEvent_StatusChange"] | components["schemas"]["WebSocketEvent_ReactionAdded"] | components["schemas"]["WebSocketEvent_ReactionRemoved"] | components["schemas"]["WebSocketEvent_ChannelUpdated"] | components["schemas"]["WebSocketEvent_ChannelDeleted"] | components["schemas"]["WebSocketEvent_ChannelRestored"] | components["schemas"]["WebSocketEvent_ChannelMemberUpdated"] | components["schemas"]["WebSocketEvent_UserRoleUpdated"] | components["schemas"]["WebSocketEvent_MemberroleUpdated"] | components["schemas"]["WebSocketEvent_UpdateTeam"] | components["schemas"]["WebSocketEvent_PreferencesChanged"] | components["schemas"]["WebSocketEvent_PreferencesDeleted"] | components["schemas"]["WebSocketEvent_ThreadUpdated"] | components["schemas"]["WebSocketEvent_ThreadFollowChanged"] | components["schemas"]["WebSocketEvent_ThreadReadChanged"] | components["schemas"]["WebSocketEvent_SidebarCategoryCreated"] | components["schemas"]["WebSocketEvent_SidebarCategoryUpdated"] | components["schemas"]["WebSocketEvent_SidebarCategoryDeleted"] | components["schemas"]["WebSocketEvent_SidebarCategoryOrderUpdated"] | components["schemas"]["WebSocketEvent_EphemeralMessage"] | components["schemas"]["WebSocketEvent_PostUnread"];
        /** @description The server's answer to a client's action. It carries the action's seq in `seq_reply` and no `seq` of its own: replies are not events and do not advance the event numbering. */
        WebSocketResponse: {
            /**
             * @description Whether the action worked.
             * @enum {string}
             */
            status: "OK" | "FAIL";
            /**
             * Format: int64
             * @description The seq of the action answered.
             */
            seq_reply?: number;
            /** @description The action's result (get_statuses, get_statuses_by_ids, ping), when it has one. */
            data?: Record<string, never>;
            error?: components["schemas"]["AppError"];
        };
        /** @description A user's presence. The server sets `online` on activity (connecting, posting, viewing a channel), `away` after TeamSettings.UserStatusAwayTimeout seconds without activity, and `offline` when the user's last WebSocket closes; a status the user set themselves (`manual`) is kept until they change it. `dnd` may end by itself at `dnd_end_time`. */
        Status: {
            /** @description Id of the user. */
            user_id: string;
            /**
             * @description The presence.
             * @enum {string}
             */
            status: "online" | "away" | "dnd" | "offline";
            /** @description Whether the user set it themselves (then activity does not change it). */
            manual: boolean;
            /**
             * Format: int64
             * @description When the user was last active, epoch milliseconds.
             */
            last_activity_at: number;
            /**
             * Format: int64
             * @description When a `dnd` status ends by itself, in Unix **seconds** (as Mattermost has it); 0 for never.
             */
            dnd_end_time: number;
        };
        /** @description A login session, as listed by GetSessions. The token is never shown (only its digest is stored); `props` holds client details when known. */
        Session: {
            /** @description Id of the session (what RevokeSession takes), not its token. */
            id: string;
            /** @description Always empty. */
            token: string;
            /**
             * Format: int64
             * @description When the session was opened (login), epoch milliseconds.
             */
            create_at: number;
            /**
             * Format: int64
             * @description When the session ends unless revoked earlier, epoch milliseconds.
             */
            expires_at: number;
            /**
             * Format: int64
             * @description When the session was last used, epoch milliseconds (recorded at most once a minute).
             */
            last_activity_at: number;
            /** @description Id of the session's user. */
            user_id: string;
            /** @description Mobile device id given at login, if any. */
            device_id: string;
            /** @description The user's system roles, space-separated. */
            roles: string;
            /** @description Always false (Parley has no OAuth logins). */
            is_oauth: boolean;
            /** @description Always false. */
            expired_notify: boolean;
            /** @description Client details (platform, os, browser) when known. */
            props: {
                [key: string]: string;
            };
            /** @description Always empty (kept for Mattermost's shape). */
            team_members: components["schemas"]["TeamMember"][];
            /** @description Always false. */
            local: boolean;
        };
        /** @description A slash command: `/<trigger>` typed in a channel of its team calls `url`. In lists (and for built-in commands) the fields only its managers may see are blanked: token, creator_id, method, url, username and icon_url are "". */
        Command: {
            /** @description Unique 26-character id ("" for a built-in command). */
            id: string;
            /** @description The secret sent with every call (`token` field, `Authorization: Token <token>`) and the key of the call's `X-Parley-Signature`; "" where sanitized. */
            token: string;
            /**
             * Format: int64
             * @description Creation time, epoch milliseconds.
             */
            create_at: number;
            /**
             * Format: int64
             * @description Time of the last change, epoch milliseconds.
             */
            update_at: number;
            /**
             * Format: int64
             * @description Deletion time, epoch milliseconds; 0 while the command exists.
             */
            delete_at: number;
            /** @description The user who owns the command; "" where sanitized. */
            creator_id: string;
            /** @description The team whose channels the command runs in ("" for a built-in command). */
            team_id: string;
            /** @description The word after the slash, lower-case, without spaces, 1 to 128 characters. */
            trigger: string;
            /**
             * @description "P": the call is a POST with a form body; "G": a GET with the fields in the query; "" where sanitized.
             * @enum {string}
             */
            method: "P" | "G" | "";
            /** @description Name shown on the command's posts when username overrides are enabled; "" where sanitized. */
            username: string;
            /** @description Picture shown on the command's posts when icon overrides are enabled; "" where sanitized. */
            icon_url: string;
            /** @description Whether the command is offered by autocomplete. */
            auto_complete: boolean;
            /** @description Autocomplete's description of the command. */
            auto_complete_desc: string;
            /** @description Autocomplete's hint for the command's arguments. */
            auto_complete_hint: string;
            /** @description Name of the command, at most 64 characters. */
            display_name: string;
            /** @description Description of the command, at most 128 characters. */
            description: string;
            /** @description The integration's http(s) URL, at most 1024 characters; "" where sanitized. */
            url: string;
            /** @description Always "" (plugins do not exist on this server). */
            plugin_id: string;
        };
        /**
         * @description A slash command as CreateCommand and UpdateCommand take it (Client4 sends the whole Command object; fields the server owns are ignored). Missing fields read as "" or false, and are then checked as Mattermost checks them.
         * @example {
         *       "team_id": "4xp9fdt77pncbef59f4k1qe83o",
         *       "trigger": "deploy",
         *       "method": "P",
         *       "url": "https://ci.example.com/mattermost/deploy",
         *       "display_name": "Deploy",
         *       "auto_complete": true,
         *       "auto_complete_hint": "[service]",
         *       "auto_complete_desc": "Deploy a service"
         *     }
         */
        CommandInput: {
            /** @description UpdateCommand only, where it must equal the path's command_id; ignored by CreateCommand. */
            id?: string | null;
            /** @description The command's team (UpdateCommand may not change it). */
            team_id?: string | null;
            /** @description The word after the slash, 1 to 128 characters, no leading "/" and no space; stored lower-case. */
            trigger?: string | null;
            /** @description "P" (POST) or "G" (GET). */
            method?: string | null;
            /** @description The integration's http(s) URL, at most 1024 characters. */
            url?: string | null;
            /** @description CreateCommand only, the owner when not the caller (needs manage_others_slash_commands). */
            creator_id?: string | null;
            /** @description Name shown on the command's posts, when username overrides are enabled. */
            username?: string | null;
            /** @description Picture shown on the command's posts, when icon overrides are enabled. */
            icon_url?: string | null;
            /** @description Whether autocomplete offers the command. */
            auto_complete?: boolean | null;
            /** @description Autocomplete's description. */
            auto_complete_desc?: string | null;
            /** @description Autocomplete's hint for the arguments. */
            auto_complete_hint?: string | null;
            /** @description Name, at most 64 characters. */
            display_name?: string | null;
            /** @description Description, at most 128 characters. */
            description?: string | null;
        };
        /** @description What a slash command answers (Mattermost's and Slack's format): a reply shown only to the user who ran it (`ephemeral`, the default) or posted in the channel (`in_channel`), and where the client should go next. */
        CommandResponse: {
            /** @description "in_channel" posts the reply; "ephemeral" or "" shows it to the invoking user only, never stored. */
            response_type?: string;
            /** @description The reply's text (Markdown; Slack-style `<url|text>` links and `<@user_id>` mentions are converted). */
            text?: string;
            /** @description Name to show on the post, when username overrides are enabled (the command's own wins). */
            username?: string;
            /** @description Another channel for the reply, one the user is a member of (403 otherwise). */
            channel_id?: string;
            /** @description Picture to show on the post, when icon overrides are enabled (the command's own wins). */
            icon_url?: string;
            /** @description The post type (a `system_` type is refused). */
            type?: string;
            /** @description Properties of the post. */
            props?: {
                [key: string]: unknown;
            } | null;
            /** @description Where the client should go (a path or URL), e.g. after /join. */
            goto_location?: string;
            /** @description An id for the command's call, set by the server. */
            trigger_id?: string;
            /** @description true leaves the text as it is (no Slack link or mention conversion). */
            skip_slack_parsing?: boolean;
            /** @description Slack message attachments shown with the reply (as in SlackAttachment; passed on as the integration sent them). */
            attachments?: {
                [key: string]: unknown;
            }[] | null;
            /** @description More replies, each a CommandResponse handled as this one (one level deep). */
            extra_responses?: {
                [key: string]: unknown;
            }[] | null;
        };
        /** @description One attempt to call an integration, as the delivery log keeps it: when, how long, what status came back, or why there was no answer. Never the token or the body. */
        IntegrationDelivery: {
            /** @description Id of the attempt (the `delivery_id` of RedeliverOutgoingWebhook). */
            id: string;
            /** @description The post whose call this was. */
            post_id: string;
            /** @description 1 for the first attempt of a call, 2 for its first retry, and so on (at most 5). */
            attempt: number;
            /**
             * Format: int64
             * @description When the request was sent, epoch milliseconds.
             */
            request_at: number;
            /** @description Milliseconds until the answer was read (or the attempt failed). */
            duration_ms: number;
            /** @description The HTTP status of the answer; 0 when there was no answer. */
            status_code: number;
            /** @description Why the attempt failed (time-out, connection error, an address refused by AllowedUntrustedInternalConnections, an error status); empty on success. */
            error: string;
        };
        /** @description One autocomplete suggestion for what the user is typing (the keys are capitalized, as Mattermost's). */
        AutocompleteSuggestion: {
            /** @description The text the input becomes when the suggestion is chosen (without the leading slash). */
            Complete: string;
            /** @description The word suggested. */
            Suggestion: string;
            /** @description The hint for the command's arguments. */
            Hint: string;
            /** @description What the command does. */
            Description: string;
            /** @description An icon as a data URL; always "". */
            IconData: string;
        };
        /** @description An outgoing webhook: posts in its channel (or, without one, in every public channel of its team) whose first word matches a trigger word are sent to its callback URLs, and the integration's answer is posted back. */
        OutgoingWebhook: {
            /** @description Unique 26-character id. */
            id: string;
            /** @description The hook's secret (26 characters): sent as `token` in every call, and the key of the call's `X-Parley-Signature`. Changed only by RegenOutgoingHookToken. */
            token: string;
            /**
             * Format: int64
             * @description Creation time, epoch milliseconds.
             */
            create_at: number;
            /**
             * Format: int64
             * @description Time of the last change, epoch milliseconds.
             */
            update_at: number;
            /**
             * Format: int64
             * @description Deletion time in epoch milliseconds; 0 while the hook is active.
             */
            delete_at: number;
            /** @description Id of the user who owns the hook; the integration's answers are posted as this user. */
            creator_id: string;
            /** @description The channel whose posts are watched (public, or private when the creator is a member of it); empty for every public channel of the team. */
            channel_id: string;
            /** @description Id of the team; fixed when the hook is created. */
            team_id: string;
            /** @description Words a post's first word is compared with; may be empty only for a hook bound to a channel. */
            trigger_words: string[];
            /**
             * @description 0 when the first word must equal a trigger word, 1 when it must start with one.
             * @enum {integer}
             */
            trigger_when: 0 | 1;
            /** @description The http(s) URLs each matching post is sent to (one call per URL). */
            callback_urls: string[];
            /** @description Name of the hook, also stored on its answers' posts as props.webhook_display_name. */
            display_name: string;
            /** @description Free-text description. */
            description: string;
            /** @description `application/json` to send JSON; anything else (by default `application/x-www-form-urlencoded`) sends a form. */
            content_type: string;
            /** @description Default username for answers' posts (needs ServiceSettings.EnablePostUsernameOverride). */
            username: string;
            /** @description Default profile picture URL for answers' posts (needs ServiceSettings.EnablePostIconOverride). */
            icon_url: string;
        };
        /** @description The fields of an outgoing webhook a client sets. Client4 sends the whole hook object: its other fields (token, times) are accepted and ignored. */
        OutgoingWebhookInput: {
            /** @description Id of the team (required on creation; on update empty or the hook's own team). */
            team_id?: string;
            /** @description The channel to watch; empty for every public channel of the team. */
            channel_id?: string | null;
            /** @description On creation, the owner (defaults to the caller; someone else needs manage_others_outgoing_webhooks). */
            creator_id?: string | null;
            /** @description Non-empty words; joined with commas at most 1024 characters. */
            trigger_words?: string[] | null;
            /** @description 0 (first word equals a trigger word, the default) or 1 (starts with one). */
            trigger_when?: number | null;
            /** @description At least one http(s) URL; joined with commas at most 1024 characters. */
            callback_urls?: string[] | null;
            /** @description At most 64 characters. */
            display_name?: string | null;
            /** @description At most 500 characters. */
            description?: string | null;
            /** @description At most 128 characters; `application/json` sends JSON, anything else a form. */
            content_type?: string | null;
            /** @description At most 64 characters. */
            username?: string | null;
            /** @description At most 1024 characters. */
            icon_url?: string | null;
        };
    };
    responses: {
        /** @description Bad request: a path, query or body parameter is missing, malformed or breaks a validation rule. `id` names the problem, for example api.context.invalid_param.app_error or a field-specific id such as model.user.is_valid.username.app_error. */
        BadRequest: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-Version-Id": components["headers"]["XVersionId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AppError"];
            };
        };
        /** @description Forbidden: the caller is authenticated but lacks the permission this operation requires (api.context.permissions.app_error), or a product rule refuses the action. */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-Version-Id": components["headers"]["XVersionId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AppError"];
            };
        };
        /** @description Internal server error: an unexpected failure. The message is generic and never reveals internals; use request_id to find the log line. */
        InternalServerError: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-Version-Id": components["headers"]["XVersionId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AppError"];
            };
        };
        /** @description Not found: the resource named in the path or body does not exist, is deleted, or is not visible to the caller. */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-Version-Id": components["headers"]["XVersionId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AppError"];
            };
        };
        /** @description Not implemented: the feature is switched off in the server configuration (for example incoming webhooks or personal access tokens), or the request uses a form this server does not support. */
        NotImplemented: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-Version-Id": components["headers"]["XVersionId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AppError"];
            };
        };
        /** @description Not modified: the `If-None-Match` header equals the current entity tag, so the copy the client holds is still current. No body is sent. */
        NotModified: {
            headers: {
                ETag: components["headers"]["ETag"];
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-Version-Id": components["headers"]["XVersionId"];
                [name: string]: unknown;
            };
            content?: never;
        };
        /** @description Service unavailable: the server is overloaded or cannot reach its database right now. The request had no effect; retry after the delay in Retry-After. */
        ServiceUnavailable: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-Version-Id": components["headers"]["XVersionId"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AppError"];
            };
        };
        /** @description Payload too large: the request body exceeds ServiceSettings.MaximumPayloadSizeBytes (api.context.request_body_too_large.app_error). The body is rejected before it is parsed. The limit holds for the body of every request but a GET, also where the operation takes no body; UploadFile has its own limits (FileSettings.MaxFileSize and MaxUserStorageBytes, see its description). */
        TooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-Version-Id": components["headers"]["XVersionId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AppError"];
            };
        };
        /** @description Too many requests (api.context.rate_limit.app_error): with RateLimitSettings.Enable on, the caller exceeded its rate limit. Wait for the number of seconds in Retry-After before sending again. While the limit is on, every response also carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (seconds until the full allowance is back). */
        TooManyRequests: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-Version-Id": components["headers"]["XVersionId"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AppError"];
            };
        };
        /** @description Unauthorized: the operation needs a session and the request carried no token, or an invalid, expired or revoked one (api.context.session_expired.app_error), or the credentials given to login were wrong. */
        Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-Version-Id": components["headers"]["XVersionId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AppError"];
            };
        };
        /** @description Unsupported Media Type: the request body is not sent as `application/json` (api.context.invalid_body_param.app_error). A body with no Content-Type is read as JSON; any other type is refused rather than guessed at, so a cross-site form can never pass for an API call. */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-Version-Id": components["headers"]["XVersionId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AppError"];
            };
        };
    };
    parameters: {
        /** @description The bot's user id (26 lower-case letters and digits). */
        BotUserIdPath: string;
        /** @description A sidebar category's id: `{type}_{user_id}_{team_id}` for a default category (favorites, channels, direct_messages), 26 lower-case letters and digits for a custom one. */
        CategoryIdPath: string;
        /** @description The channel id (26 lower-case letters and digits). */
        ChannelIdPath: string;
        /** @description Collapsed reply threads mode of the client: when true, channel views hold root posts only (paged and counted as roots), each with its thread's reply count, last reply time, participants and whether the caller follows it. Client4 always sends this parameter. */
        CollapsedThreads: boolean;
        /** @description With collapsed threads, the participants of each thread as whole (sanitized) users instead of `{id}`. Client4 always sends this parameter. */
        CollapsedThreadsExtended: boolean;
        /** @description The file id (26 lower-case letters and digits). */
        FileIdPath: string;
        /** @description The incoming webhook id (26 lower-case letters and digits). It is also the secret key of the hook URL. */
        HookIdPath: string;
        /** @description The secret key of the incoming webhook (its id). Only ASCII letters and digits match the route, as in Mattermost; a key that matches but belongs to no active hook gets 404. */
        HookKeyPath: string;
        /** @description An entity tag from an earlier response. If it still matches, the server answers 304 Not Modified without a body. */
        IfNoneMatch: string;
        /** @description When true the response is an object holding the page of items and the total number of matching items, instead of a bare array. */
        IncludeTotalCount: boolean;
        /** @description Zero-based page number. */
        Page: number;
        /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
        PerPage: number;
        /** @description The post id (26 lower-case letters and digits). */
        PostIdPath: string;
        /** @description A preference category. */
        PreferenceCategoryPath: string;
        /** @description A preference's name within its category. */
        PreferenceNamePath: string;
        /** @description When true, only the listed posts are returned: channel pages leave out the root posts of the replies they list, and GetPostThread answers the post alone. Client4 always sends this parameter. */
        SkipFetchThreads: boolean;
        /** @description The team id (26 lower-case letters and digits). */
        TeamIdPath: string;
        /** @description The thread's id, which is its root post's id (26 lower-case letters and digits). */
        ThreadIdPath: string;
        /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
        UserIdPath: string;
        /** @description What to look for (leading and trailing spaces ignored); empty finds every channel the operation lists. At most 64 characters (the longest channel name or display name): a longer term is refused with 400. */
        ChannelSearchName: string;
        /** @description The slash command id (26 lower-case letters and digits). */
        CommandIdPath: string;
        /** @description The outgoing webhook id (26 lower-case letters and digits). */
        OutgoingHookIdPath: string;
        /** @description The id of one recorded delivery attempt (26 lower-case letters and digits). */
        DeliveryIdPath: string;
    };
    requestBodies: never;
    headers: {
        /** @description Entity tag of the returned representation. Send it back in `If-None-Match`; while the resource is unchanged the server answers 304 Not Modified without a body. */
        ETag: string;
        /** @description Number of seconds the client should wait before trying again. */
        RetryAfter: number;
        /** @description The new session token. Send it as `Authorization: Bearer <token>` on later requests. Client4 reads this header (in any letter case) to authenticate itself. */
        Token: string;
        /** @description Identifier of this request (26 characters), generated by the server for every response. The same value is copied into `AppError.request_id` and into the server log line, so a report can be matched to the log. */
        XRequestId: string;
        /** @description Server build identifier in Mattermost's dotted form `<version>.<build number>.<client config hash>.<has licence>`. Client4 remembers it as the server version. */
        XVersionId: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    GetPing: {
        parameters: {
            query?: {
                /** @description When true, also check the database and the file store and report them. */
                get_server_status?: boolean;
                /** @description Id of a mobile device; when given, the response says whether push notifications can reach it. */
                device_id?: string;
                /** @description When true, an unhealthy server answers with an error status instead of 200. */
                use_rest_semantics?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server is running; `status` says whether it is healthy. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SystemStatusResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            429: components["responses"]["TooManyRequests"];
            /** @description The server is unhealthy and the request asked for REST semantics (`use_rest_semantics=true`): the body is the same status report with `status` set to `UNHEALTHY`. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SystemStatusResponse"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The configuration. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Config"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    PatchConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The settings to change; every key is optional. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "ServiceSettings": {
                 *         "EnableUserAccessTokens": true,
                 *         "EnablePostUsernameOverride": true
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Config"];
            };
        };
        responses: {
            /** @description The configuration after the change, secrets masked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Config"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetClientConfig: {
        parameters: {
            query?: {
                /** @description Must be `old`. */
                format?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client configuration. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientConfig"];
                };
            };
            400: components["responses"]["BadRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ConnectWebSocket: {
        parameters: {
            query?: {
                /** @description The connection to resume (from its hello). */
                connection_id?: string;
                /** @description The seq of the first event the client has not received. */
                sequence_number?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Switching Protocols: the socket is open. The frames the server sends are events (WebSocketEvent) and replies to actions (WebSocketResponse); the client sends actions (WebSocketRequest). */
            101: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebSocketEvent"] | components["schemas"]["WebSocketResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetClientLicense: {
        parameters: {
            query?: {
                /** @description `old` (the only format there is). */
                format?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client license. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "IsLicensed": "false",
                     *       "Cloud": "false",
                     *       "IsTrial": "false",
                     *       "SkuShortName": ""
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description "false": this server has no license.
                         * @enum {string}
                         */
                        IsLicensed: "true" | "false";
                    } & {
                        [key: string]: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetServerLimits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server's limits. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "maxUsersLimit": 0,
                     *       "maxUsersHardLimit": 0,
                     *       "activeUserCount": 12,
                     *       "lastAccessiblePostTime": 0,
                     *       "postHistoryLimit": 0
                     *     }
                     */
                    "application/json": {
                        /** @description Users allowed before warnings; 0 is no limit. */
                        maxUsersLimit: number;
                        /** @description Users allowed at most; 0 is no limit. */
                        maxUsersHardLimit: number;
                        /** @description Active users (system admins only; 0 for others). */
                        activeUserCount: number;
                        /**
                         * Format: int64
                         * @description Posts older than this (epoch ms) are hidden by a history limit; 0 is none.
                         */
                        lastAccessiblePostTime: number;
                        /** @description Posts of history kept visible; 0 is no limit. */
                        postHistoryLimit: number;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetUsers: {
        parameters: {
            query?: {
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
                /** @description Only users who are members of this team. */
                in_team?: string;
                /** @description Only users who are not members of this team. */
                not_in_team?: string;
                /** @description Only users who are members of this channel. */
                in_channel?: string;
                /** @description Only users who are not members of this channel; used together with in_team. */
                not_in_channel?: string;
                /** @description When `true` or `1`, only users who belong to no team (Client4 sends `1`); empty, `false` or `0` do not filter. */
                without_team?: "" | "true" | "false" | "1" | "0";
                /** @description Accepted for Client4 compatibility; Parley has no synchronised groups, so it does not narrow the result. */
                group_constrained?: boolean;
                /** @description When true, only active users; when false, only deactivated users. */
                active?: boolean;
                /** @description When true, only deactivated users. */
                inactive?: boolean;
                /** @description Only users with this system role, for example `system_admin`. */
                role?: string;
                /** @description Sort order. Empty sorts by username. With in_team also `last_activity_at` or `create_at`; with in_channel also `status`. */
                sort?: "" | "last_activity_at" | "create_at" | "status";
                /** @description Id of the last user of the previous page, for cursor paging instead of `page`. */
                cursor_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of users. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    CreateUser: {
        parameters: {
            query?: {
                /** @description Token id of an e-mail invitation (Parley sends none, so none is valid). */
                t?: string;
                /** @description Invite id of the team to join (its invite link's `id`). */
                iid?: string;
                /** @description Path the web client should go to after sign-up; ignored by the server. */
                r?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "username": "alice",
                 *       "email": "alice@example.com",
                 *       "password": "Passw0rd!",
                 *       "first_name": "Alice"
                 *     }
                 */
                "application/json": {
                    /** @description E-mail address, unique on the server. */
                    email: string;
                    /** @description Login name, unique on the server: 1 to 64 characters from lower-case letters, digits, `.`, `-` and `_` after lower-casing; must not be a reserved name (all, channel, matterbot, system). */
                    username: string;
                    /** @description Password, checked against the server's password rules; at most 72 bytes. */
                    password: string;
                    /** @description Given name, at most 64 characters. */
                    first_name?: string | null;
                    /** @description Family name, at most 64 characters. */
                    last_name?: string | null;
                    /** @description Nickname, at most 64 characters. */
                    nickname?: string | null;
                    /** @description Job title, at most 128 characters. */
                    position?: string | null;
                    /** @description Preferred language (default `en`). */
                    locale?: string | null;
                    /** @description Free-form string properties, at most 65535 bytes as JSON. */
                    props?: {
                        [key: string]: string | null;
                    } | null;
                    /** @description Notification preferences; missing keys get the server defaults. At most 65535 bytes as JSON with them. */
                    notify_props?: {
                        [key: string]: string | null;
                    } | null;
                    /** @description Time zone settings (useAutomaticTimezone, automaticTimezone, manualTimezone) as strings. */
                    timezone?: {
                        [key: string]: string | null;
                    } | null;
                };
            };
        };
        responses: {
            /** @description The account was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    Login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "login_id": "alice",
                 *       "password": "Passw0rd!",
                 *       "token": "",
                 *       "deviceId": ""
                 *     }
                 */
                "application/json": {
                    /** @description Username or e-mail address of the account. */
                    login_id?: string | null;
                    /** @description Id of the account, as an alternative to login_id. */
                    id?: string | null;
                    /** @description Password of the account. */
                    password: string;
                    /** @description Multi-factor authentication code; Client4 sends an empty string when there is none. */
                    token?: string | null;
                    /** @description Id of the mobile device, for push notifications. */
                    device_id?: string | null;
                    /** @description Spelling of device_id that Client4's login() sends; accepted and ignored. */
                    deviceId?: string | null;
                    /** @description Restrict the login to LDAP accounts. A boolean, or the string `true`/`false` as Client4 sends it; null is not given. */
                    ldap_only?: (boolean | null) | string;
                };
            };
        };
        responses: {
            /** @description Logged in. */
            200: {
                headers: {
                    Token: components["headers"]["Token"];
                    /** @description Only for a login sent with `X-Requested-With: XMLHttpRequest`: `MMAUTHTOKEN`, `MMUSERID` and `MMCSRF`, each with `Path=/`, `SameSite=Lax`, the session's lifetime as `Max-Age` and `Expires`, and `Secure` when the SiteURL is https. `MMAUTHTOKEN` is HttpOnly. */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    Logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Logged out. */
            200: {
                headers: {
                    /** @description The session cookies (`MMAUTHTOKEN`, `MMUSERID`, `MMCSRF`), expired. */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetUsersByIds: {
        parameters: {
            query?: {
                /** @description Only return users whose profile changed after this time (epoch milliseconds). */
                since?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       "4xp9fdt1pfgdpgbkrtm6e8kuoh",
                 *       "ejn7dbkk8fr4pn5u3z8xnqxbja"
                 *     ]
                 */
                "application/json": (string | null)[];
            };
        };
        responses: {
            /** @description The users found. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetUsersByUsernames: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       "alice",
                 *       "bob"
                 *     ]
                 */
                "application/json": (string | null)[];
            };
        };
        responses: {
            /** @description The users found, sorted by username. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    AutocompleteUsers: {
        parameters: {
            query?: {
                /** @description Only members of this team (empty means no team). */
                in_team?: string;
                /** @description Split the team's members into this channel's members and the others (empty means no channel). */
                in_channel?: string;
                /** @description The start of the names to find; empty finds everyone. */
                name?: string;
                /** @description At most this many users per list (default 100; larger values are reduced to 1000). */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The users found. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserAutocomplete"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetUserByUsername: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The username to look up. */
                username: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetUser: {
        parameters: {
            query?: never;
            header?: {
                /** @description An entity tag from an earlier response. If it still matches, the server answers 304 Not Modified without a body. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    DeleteUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deactivated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    PatchUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "nickname": "Ali",
                 *       "position": "Release manager",
                 *       "notify_props": {
                 *         "desktop": "mention"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description New e-mail address. */
                    email?: string | null;
                    /** @description Your current password; required to change your own e-mail address, ignored otherwise. */
                    password?: string | null;
                    /** @description New username; same rules as on creation. */
                    username?: string | null;
                    /** @description New given name. */
                    first_name?: string | null;
                    /** @description New family name. */
                    last_name?: string | null;
                    /** @description New nickname. */
                    nickname?: string | null;
                    /** @description New job title. */
                    position?: string | null;
                    /** @description New preferred language. */
                    locale?: string | null;
                    /** @description Replacement set of free-form string properties, at most 65535 bytes as JSON. */
                    props?: {
                        [key: string]: string | null;
                    } | null;
                    /** @description Notification preferences merged over the current ones; the result is at most 65535 bytes as JSON. */
                    notify_props?: {
                        [key: string]: string | null;
                    } | null;
                    /** @description Replacement time zone settings. */
                    timezone?: {
                        [key: string]: string | null;
                    } | null;
                };
            };
        };
        responses: {
            /** @description The updated user. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateUserRoles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "roles": "system_user system_admin"
                 *     }
                 */
                "application/json": {
                    /** @description Space-separated system roles. */
                    roles: string;
                };
            };
        };
        responses: {
            /** @description The roles are set. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetProfileImage: {
        parameters: {
            query?: {
                /** @description Cache buster some clients add (the user's last_picture_update); ignored. */
                _?: string;
            };
            header?: {
                /** @description An entity tag from an earlier response. If it still matches, the server answers 304 Not Modified without a body. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A 128×128 PNG. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    /** @description An uploaded picture: `max-age=86400, private` (a new one comes with a new last_picture_update, which clients put in the URL). The default: `max-age=300, private` (it follows the username). */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "image/png": string;
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    SetProfileImage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "image": "(the picture's bytes, with its file name in the part's Content-Disposition)"
                 *     }
                 */
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description The picture (PNG, JPEG or GIF).
                     */
                    image: string;
                };
            };
        };
        responses: {
            /** @description The picture was set. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    SetDefaultProfileImage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The default picture is back. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetDefaultProfileImage: {
        parameters: {
            query?: never;
            header?: {
                /** @description An entity tag from an earlier response. If it still matches, the server answers 304 Not Modified without a body. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A 128×128 PNG. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    /** @description `max-age=300, private`: the picture follows the username, so caches keep it briefly. */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "image/png": string;
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetUserAccessTokensForUser: {
        parameters: {
            query?: {
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
            };
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tokens. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserAccessToken"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    CreateUserAccessToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "CI deploy bot"
                 *     }
                 */
                "application/json": {
                    /** @description What the token is for. */
                    description: string;
                    /**
                     * Format: int64
                     * @description Expiry time in epoch milliseconds; omit, null or 0 for a token that does not expire.
                     */
                    expires_at?: number | null;
                };
            };
        };
        responses: {
            /** @description The token, including its secret. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserAccessToken"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetUserStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The status. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Status"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateUserStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "4xp9fdt1pfgdpgbkrtm6e8kuoh",
                 *       "status": "dnd",
                 *       "dnd_end_time": 1795300000
                 *     }
                 */
                "application/json": {
                    /** @description Must be the user of the path when given. */
                    user_id?: string | null;
                    /** @description online, away, offline or dnd (anything else is 400). */
                    status: string;
                    /**
                     * Format: int64
                     * @description For dnd, when it ends by itself, in Unix seconds; 0 or absent for never.
                     */
                    dnd_end_time?: number | null;
                };
            };
        };
        responses: {
            /** @description The status now. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Status"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetUsersStatusesByIds: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       "4xp9fdt1pfgdpgbkrtm6e8kuoh",
                 *       "ejn7dbkk8fr4pn5u3z8xnqxbja"
                 *     ]
                 */
                "application/json": string[];
            };
        };
        responses: {
            /** @description The statuses. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Status"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdatePassword: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "current_password": "Passw0rd!",
                 *       "new_password": "An0ther-passw0rd"
                 *     }
                 */
                "application/json": {
                    /** @description The current password; required when changing your own. */
                    current_password?: string | null;
                    /** @description The new password, 8 to 72 bytes. */
                    new_password: string;
                };
            };
        };
        responses: {
            /** @description Changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateUserActive: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "active": false
                 *     }
                 */
                "application/json": {
                    /** @description false to deactivate, true to reactivate. */
                    active: boolean;
                };
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetSessions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sessions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RevokeSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "session_id": "8xbq1w6k3bf5fkkzg3xe4x1y7h"
                 *     }
                 */
                "application/json": {
                    /** @description Id of the session (from GetSessions), not its token. */
                    session_id: string;
                };
            };
        };
        responses: {
            /** @description Revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RevokeAllSessionsForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetUserAccessToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the access token record (not the secret). */
                token_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserAccessToken"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RevokeUserAccessToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token_id": "3mz7wiw3ufb5uyiexoxtsad5qc"
                 *     }
                 */
                "application/json": {
                    /** @description Id of the access token record. */
                    token_id: string;
                };
            };
        };
        responses: {
            /** @description Revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    DisableUserAccessToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token_id": "3mz7wiw3ufb5uyiexoxtsad5qc"
                 *     }
                 */
                "application/json": {
                    /** @description Id of the access token record. */
                    token_id: string;
                };
            };
        };
        responses: {
            /** @description Disabled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    EnableUserAccessToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token_id": "3mz7wiw3ufb5uyiexoxtsad5qc"
                 *     }
                 */
                "application/json": {
                    /** @description Id of the access token record. */
                    token_id: string;
                };
            };
        };
        responses: {
            /** @description Enabled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetAllTeams: {
        parameters: {
            query?: {
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
                /** @description When true the response is an object holding the page of items and the total number of matching items, instead of a bare array. */
                include_total_count?: components["parameters"]["IncludeTotalCount"];
                /** @description Leave out teams governed by a data-retention policy. Client4 always sends it. */
                exclude_policy_constrained?: boolean;
                /** @description Accepted because Client4 always sends it; it does not change the result. */
                for_directory?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of teams, bare or with the total count. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"][] | components["schemas"]["TeamList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    CreateTeam: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "team-a",
                 *       "display_name": "Team A",
                 *       "type": "O"
                 *     }
                 */
                "application/json": {
                    /** @description Unique URL name: 2 to 64 lower-case letters, digits and dashes, starting and ending with a letter or digit, and not starting with a reserved word such as `api` or `admin`. */
                    name: string;
                    /** @description Name shown to users, 1 to 64 characters. */
                    display_name: string;
                    /**
                     * @description `O` for an open team, `I` for an invite-only team.
                     * @enum {string}
                     */
                    type: "O" | "I";
                    /** @description Free-text description, at most 255 characters. */
                    description?: string | null;
                    /** @description Contact address of the team administrator. */
                    email?: string | null;
                    /** @description E-mail domains allowed to join (commas, spaces or `@` between them), checked when a user joins or is added; the creator is not checked. */
                    allowed_domains?: string | null;
                    /** @description Ignored on creation; derived from type. */
                    allow_open_invite?: boolean | null;
                    /** @description Name of the company, at most 64 characters. */
                    company_name?: string | null;
                };
            };
        };
        responses: {
            /** @description The team was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetTeamByName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description URL name of the team. */
                team_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The team. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetTeam: {
        parameters: {
            query?: {
                /** @description Accepted because Client4 may send it; it does not change the result. */
                as_content_reviewer?: boolean;
                /** @description Accepted because Client4 may send it; it does not change the result. */
                flagged_post_id?: string;
            };
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The team. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    PatchTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Engineering",
                 *       "description": "Where the code gets written",
                 *       "allow_open_invite": true
                 *     }
                 */
                "application/json": {
                    /** @description New name shown to users (1 to 64 characters). */
                    display_name?: string | null;
                    /** @description New description (at most 255 characters). */
                    description?: string | null;
                    /** @description New company name (at most 64 characters). */
                    company_name?: string | null;
                    /** @description E-mail domains allowed to join (at most 500 characters; commas, spaces or `@` between them), checked when a user joins or is added; members already on the team stay. */
                    allowed_domains?: string | null;
                    /** @description Whether anyone may join (an open team) or only those invited. */
                    allow_open_invite?: boolean | null;
                    /** @description Group sync is not supported; true is refused. */
                    group_constrained?: boolean | null;
                };
            };
        };
        responses: {
            /** @description The updated team. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetTeamStats: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The counts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamStats"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetTeamMembers: {
        parameters: {
            query?: {
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
                /** @description Empty orders by user id; `Username` orders by username. */
                sort?: "" | "Username";
                /** @description When true, leave out deactivated users. */
                exclude_deleted_users?: boolean;
            };
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of memberships. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamMember"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    AddTeamMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "team_id": "8m3xz1fbqjgr5pxw7kcd9tq4ne",
                 *       "user_id": "u5ou3b7wjjg4jrqc7yqkzsefxc"
                 *     }
                 */
                "application/json": {
                    /** @description Id of the team; must equal the team_id in the path. */
                    team_id: string;
                    /** @description Id of the user to add. */
                    user_id: string;
                };
            };
        };
        responses: {
            /** @description The membership. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamMember"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RemoveTeamMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user is no longer on the team. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateTeamMemberRoles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "roles": "team_user team_admin"
                 *     }
                 */
                "application/json": {
                    /** @description The roles, space-separated, e.g. `team_user team_admin`. */
                    roles: string;
                };
            };
        };
        responses: {
            /** @description The roles were set. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RegenerateTeamInviteId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The team, with its new invite id. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    AddTeamMemberFromInvite: {
        parameters: {
            query?: {
                /** @description The team's invite id. */
                invite_id?: string;
                /** @description An e-mail invitation's token (Parley sends none, so none is valid). */
                token?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's membership of the team. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamMember"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetTeamInviteInfo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's invite id. */
                invite_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The team the link leads to. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The team id. */
                        id: string;
                        /** @description The team's URL name. */
                        name: string;
                        /** @description The team's display name. */
                        display_name: string;
                        /** @description The team's description. */
                        description: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetTeamsForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user's teams. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetTeamMembersForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The memberships. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamMember"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetTeamsUnreadForUser: {
        parameters: {
            query?: {
                /** @description Leave this team out (the one a client shows already). */
                exclude_team?: string;
                /** @description With true, thread_count, thread_mention_count and thread_urgent_mention_count count the user's unread followed threads in each team (in channels they are still a member of); 0 otherwise. */
                include_collapsed_threads?: boolean;
            };
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The counts, one entry per team. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamUnread"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetTeamUnread: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The counts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamUnread"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    CreateChannel: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "team_id": "8m3xz1fbqjgr5pxw7kcd9tq4ne",
                 *       "name": "town-talk",
                 *       "display_name": "Town Talk",
                 *       "type": "O",
                 *       "purpose": "",
                 *       "header": ""
                 *     }
                 */
                "application/json": {
                    /** @description Id of the team the channel belongs to. */
                    team_id: string;
                    /** @description URL name, unique in the team: up to 64 lower-case letters, digits, `-` and `_`, starting with a letter or digit. */
                    name: string;
                    /** @description Name shown to users, 1 to 64 characters. */
                    display_name: string;
                    /**
                     * @description `O` for a public channel, `P` for a private one.
                     * @enum {string}
                     */
                    type: "O" | "P";
                    /** @description What the channel is for, at most 250 characters. */
                    purpose?: string | null;
                    /** @description Markdown text for the channel header, at most 1024 characters. */
                    header?: string | null;
                };
            };
        };
        responses: {
            /** @description The channel was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    CreateDirectChannel: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       "u5ou3b7wjjg4jrqc7yqkzsefxc",
                 *       "9kdw3sq1cfbu7m4a8gxjeyz5ho"
                 *     ]
                 */
                "application/json": string[];
            };
        };
        responses: {
            /** @description The direct channel (type D). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetChannel: {
        parameters: {
            query?: {
                /** @description Accepted because Client4 may send it; it does not change the result. */
                as_content_reviewer?: boolean;
                /** @description Accepted because Client4 may send it; it does not change the result. */
                flagged_post_id?: string;
            };
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The channel. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "9tnjqpjhd7ft3ex9w6qt3b9p4e",
                 *       "type": "O",
                 *       "display_name": "Release planning",
                 *       "name": "release-planning",
                 *       "header": "Next release: **Friday**",
                 *       "purpose": "Plan and track releases"
                 *     }
                 */
                "application/json": {
                    /** @description Id of the channel; must equal the channel_id of the path. */
                    id: string;
                    /** @description The channel's type; a different one than it has is refused. */
                    type?: string | null;
                    /** @description New name shown to users; unchanged when empty. */
                    display_name?: string | null;
                    /** @description New URL name; unchanged when empty. */
                    name?: string | null;
                    /** @description New header (Markdown, at most 1024 characters); absent or empty clears it. */
                    header?: string | null;
                    /** @description New purpose (at most 250 characters); absent or empty clears it. */
                    purpose?: string | null;
                    /** @description Group sync is not supported; true is refused. */
                    group_constrained?: boolean | null;
                };
            };
        };
        responses: {
            /** @description The updated channel. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    DeleteChannel: {
        parameters: {
            query?: {
                /** @description Delete the channel and its posts for good; not enabled on this server. */
                permanent?: boolean;
            };
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The channel is archived. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    PatchChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "header": "Standup at **9:30**",
                 *       "purpose": "Daily coordination"
                 *     }
                 */
                "application/json": {
                    /** @description New name shown to users (1 to 64 characters). */
                    display_name?: string | null;
                    /** @description New URL name (lower-case letters, digits, dashes and underscores; at most 64). */
                    name?: string | null;
                    /** @description New header (Markdown, at most 1024 characters). */
                    header?: string | null;
                    /** @description New purpose (at most 250 characters). */
                    purpose?: string | null;
                    /** @description Group sync is not supported; true is refused. */
                    group_constrained?: boolean | null;
                };
            };
        };
        responses: {
            /** @description The updated channel. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RestoreChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The restored channel. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetChannelStats: {
        parameters: {
            query?: {
                /** @description When true the files are not counted and `files_count` is -1 (Client4 sends it unless asked for files). */
                exclude_files_count?: boolean;
            };
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The counts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelStats"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetChannelMembers: {
        parameters: {
            query?: {
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
            };
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of memberships. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelMember"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    AddChannelMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "u5ou3b7wjjg4jrqc7yqkzsefxc",
                 *       "channel_id": "4x9dgbfcwtf7zmhrkjoagiqp3e",
                 *       "post_root_id": ""
                 *     }
                 */
                "application/json": {
                    /** @description Id of the single user to add. */
                    user_id?: string | null;
                    /** @description Ids of several users to add. */
                    user_ids?: string[] | null;
                    /** @description Id of a thread root post the users were mentioned in; may be empty. */
                    post_root_id?: string | null;
                    /** @description Id of the channel, which Client4 repeats from the path; ignored. */
                    channel_id?: string | null;
                };
            };
        };
        responses: {
            /** @description The new (or existing) membership, or one per user when user_ids was sent. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelMember"] | components["schemas"]["ChannelMember"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetChannelMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The membership. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelMember"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RemoveUserFromChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user was removed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateChannelRoles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "roles": "channel_user channel_admin"
                 *     }
                 */
                "application/json": {
                    /** @description Space-separated channel roles. */
                    roles: string;
                };
            };
        };
        responses: {
            /** @description The roles are set. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateChannelNotifyProps: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "desktop": "mention",
                 *       "mark_unread": "mention"
                 *     }
                 */
                "application/json": {
                    [key: string]: string;
                };
            };
        };
        responses: {
            /** @description The settings are changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ViewChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "channel_id": "4x9dgbfcwtf7zmhrkjoagiqp3e",
                 *       "collapsed_threads_supported": true
                 *     }
                 */
                "application/json": {
                    /** @description Id of the channel being viewed; may be empty (null is empty, as Mattermost decodes it). */
                    channel_id: string | null;
                    /** @description Id of the channel the user switched away from, also marked as viewed. */
                    prev_channel_id?: string | null;
                    /** @description Whether the client supports collapsed reply threads; Client4 always sends true. */
                    collapsed_threads_supported?: boolean | null;
                };
            };
        };
        responses: {
            /** @description The channels were marked as viewed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelViewResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetPublicChannelsForTeam: {
        parameters: {
            query?: {
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
            };
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of public channels. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetDeletedChannelsForTeam: {
        parameters: {
            query?: {
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
            };
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of archived channels. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    AutocompleteChannelsForTeam: {
        parameters: {
            query?: {
                /** @description What to look for (leading and trailing spaces ignored); empty finds every channel the operation lists. At most 64 characters (the longest channel name or display name): a longer term is refused with 400. */
                name?: components["parameters"]["ChannelSearchName"];
            };
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The channels found. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    AutocompleteChannelsForTeamForSearch: {
        parameters: {
            query?: {
                /** @description What to look for (leading and trailing spaces ignored); empty finds every channel the operation lists. At most 64 characters (the longest channel name or display name): a longer term is refused with 400. */
                name?: components["parameters"]["ChannelSearchName"];
            };
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The channels found. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    SearchChannels: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "term": "town"
                 *     }
                 */
                "application/json": {
                    /** @description What to look for (leading and trailing spaces ignored). At most 64 characters (the longest channel name or display name): a longer term is refused with 400. */
                    term?: string | null;
                    /** @description Accepted and ignored here (system console searches use it). */
                    public?: boolean | null;
                    /** @description Accepted and ignored here. */
                    private?: boolean | null;
                    /** @description Accepted and ignored here. */
                    deleted?: boolean | null;
                    /** @description Accepted and ignored here. */
                    include_deleted?: boolean | null;
                    /** @description Accepted and ignored here. */
                    page?: number | null;
                    /** @description Accepted and ignored here. */
                    per_page?: number | null;
                };
            };
        };
        responses: {
            /** @description The channels found. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetChannelByName: {
        parameters: {
            query?: {
                /** @description When true, archived channels are found too. Client4 always sends it. */
                include_deleted?: boolean;
            };
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
                /** @description URL name of the channel. */
                channel_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The channel. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetChannelByNameForTeamName: {
        parameters: {
            query?: {
                /** @description When true, archived channels are found too. Client4 always sends it. */
                include_deleted?: boolean;
            };
            header?: never;
            path: {
                /** @description URL name of the team. */
                team_name: string;
                /** @description URL name of the channel. */
                channel_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The channel. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetChannelsForTeamForUser: {
        parameters: {
            query?: {
                /** @description When true, archived channels are included. */
                include_deleted?: boolean;
                /** @description With include_deleted, only archived channels deleted after this time (epoch milliseconds). */
                last_delete_at?: number;
            };
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user's channels. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetChannelMembersForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The memberships. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelMember"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetChannelsForUser: {
        parameters: {
            query?: {
                /** @description When true, archived channels are included. */
                include_deleted?: boolean;
                /** @description With include_deleted, only archived channels deleted at or after this time (epoch milliseconds). */
                last_delete_at?: number;
            };
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user's channels. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetChannelMembersWithTeamDataForUser: {
        parameters: {
            query?: {
                /** @description Zero-based page number, or -1 for every membership in one answer. */
                page?: number;
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
            };
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The memberships. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelMemberWithTeamData"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetRole: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the role (26 lower-case letters and digits). */
                role_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The role. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Role"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetRoleByName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The role's name, for example `team_user`. */
                role_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The role. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Role"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetRolesByNames: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       "system_user",
                 *       "team_user",
                 *       "channel_user"
                 *     ]
                 */
                "application/json": (string | null)[];
            };
        };
        responses: {
            /** @description The roles found, sorted by name. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Role"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetSidebarCategoriesForTeamForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The categories and their order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderedSidebarCategories"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateSidebarCategoriesForTeamForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "id": "favorites_9x3pbdc5yjfexm8crfmnrmd1ec_4xp9fdt77pncbef59f4k1qe83o",
                 *         "user_id": "9x3pbdc5yjfexm8crfmnrmd1ec",
                 *         "team_id": "4xp9fdt77pncbef59f4k1qe83o",
                 *         "type": "favorites",
                 *         "display_name": "Favorites",
                 *         "sorting": "",
                 *         "muted": false,
                 *         "collapsed": false,
                 *         "channel_ids": [
                 *           "hkmkm1wzr7fk8fj6tkdu6cwngw"
                 *         ]
                 *       }
                 *     ]
                 */
                "application/json": components["schemas"]["SidebarCategoryInput"][];
            };
        };
        responses: {
            /** @description The categories as stored now, in the body's order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SidebarCategory"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    CreateSidebarCategoryForTeamForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SidebarCategoryInput"];
            };
        };
        responses: {
            /** @description The new category. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SidebarCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetSidebarCategoryOrderForTeamForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The category ids, in order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string[];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateSidebarCategoryOrderForTeamForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       "favorites_9x3pbdc5yjfexm8crfmnrmd1ec_4xp9fdt77pncbef59f4k1qe83o",
                 *       "channels_9x3pbdc5yjfexm8crfmnrmd1ec_4xp9fdt77pncbef59f4k1qe83o",
                 *       "direct_messages_9x3pbdc5yjfexm8crfmnrmd1ec_4xp9fdt77pncbef59f4k1qe83o"
                 *     ]
                 */
                "application/json": string[];
            };
        };
        responses: {
            /** @description The new order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string[];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetSidebarCategoryForTeamForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
                /** @description A sidebar category's id: `{type}_{user_id}_{team_id}` for a default category (favorites, channels, direct_messages), 26 lower-case letters and digits for a custom one. */
                category_id: components["parameters"]["CategoryIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The category. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SidebarCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateSidebarCategoryForTeamForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
                /** @description A sidebar category's id: `{type}_{user_id}_{team_id}` for a default category (favorites, channels, direct_messages), 26 lower-case letters and digits for a custom one. */
                category_id: components["parameters"]["CategoryIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SidebarCategoryInput"];
            };
        };
        responses: {
            /** @description The category. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SidebarCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RemoveSidebarCategoryForTeamForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
                /** @description A sidebar category's id: `{type}_{user_id}_{team_id}` for a default category (favorites, channels, direct_messages), 26 lower-case letters and digits for a custom one. */
                category_id: components["parameters"]["CategoryIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    CreatePost: {
        parameters: {
            query?: {
                /** @description Whether creating the post marks the author as online (default true). */
                set_online?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "channel_id": "4x9dgbfcwtf7zmhrkjoagiqp3e",
                 *       "message": "hello world",
                 *       "root_id": "",
                 *       "props": {}
                 *     }
                 */
                "application/json": {
                    /** @description Id of the channel to post in. */
                    channel_id: string;
                    /** @description Markdown text of the post, at most 16383 Unicode code points. */
                    message: string;
                    /** @description Id of the root post to reply to; empty or absent for a new root post. */
                    root_id?: string | null;
                    /** @description Ids of files to attach (at most 10), uploaded with UploadFile by the poster to this channel and not attached to a post yet; otherwise the post is refused (400) and nothing is written. Needs upload_file. The post's metadata.files then lists their FileInfos. */
                    file_ids?: string[] | null;
                    /** @description Free-form properties stored on the post, at most 65536 bytes as JSON (UTF-8); more is 400 `model.post.is_valid.props.app_error`. */
                    props?: {
                        [key: string]: unknown;
                    } | null;
                    /** @description Client-chosen id returned unchanged in the created post, at most 64 characters (the web and mobile apps send the user's id, a colon and a millisecond timestamp: 40 characters). */
                    pending_post_id?: string | null;
                    /** @description Metadata of the new post; only priority is read. */
                    metadata?: {
                        priority?: components["schemas"]["PostPriority"];
                    } | null;
                };
            };
        };
        responses: {
            /** @description The created post. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Post"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetPost: {
        parameters: {
            query?: {
                /** @description When true, a deleted post is returned too (system admins only). */
                include_deleted?: boolean;
                /** @description Accepted because Client4 may send it; it does not change the result. */
                retain_content?: boolean;
            };
            header?: never;
            path: {
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The post. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Post"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdatePost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "7gq4zhjtkpfk5mbd1y3wdfc6ro",
                 *       "channel_id": "4xp9fdt77pncbef59f4k1qe83o",
                 *       "message": "edited",
                 *       "is_pinned": false,
                 *       "props": {}
                 *     }
                 */
                "application/json": {
                    /** @description Id of the post; must equal the path's. */
                    id?: string;
                    /** @description The new Markdown text, at most 16383 Unicode code points. */
                    message?: string;
                    /** @description Whether the post is pinned. */
                    is_pinned?: boolean | null;
                    /** @description The new set of free-form properties. */
                    props?: {
                        [key: string]: unknown;
                    } | null;
                    /** @description Ids of the attached files; absent keeps them. */
                    file_ids?: string[] | null;
                    /** @description Accepted for compatibility; the server keeps this flag itself. */
                    has_reactions?: boolean | null;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The updated post. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Post"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    DeletePost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The post was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    PatchPost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "7gq4zhjtkpfk5mbd1y3wdfc6ro",
                 *       "message": "edited"
                 *     }
                 */
                "application/json": {
                    /** @description Id of the post, which Client4 repeats from the path; ignored. */
                    id?: string;
                    /** @description New Markdown text, at most 16383 Unicode code points. */
                    message?: string | null;
                    /** @description Pin or unpin the post. */
                    is_pinned?: boolean | null;
                    /** @description New list of attached file ids. */
                    file_ids?: string[] | null;
                    /** @description Accepted for compatibility; the server keeps this flag itself. */
                    has_reactions?: boolean | null;
                    /** @description Replacement set of free-form properties. */
                    props?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description The updated post. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Post"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetPostThread: {
        parameters: {
            query?: {
                /** @description Number of posts per page; 0 or absent returns the whole thread. */
                perPage?: number;
                /** @description Id of the post to continue from (exclusive). */
                fromPost?: string;
                /** @description Creation time (epoch milliseconds) to continue from; used with fromPost. */
                fromCreateAt?: number;
                /** @description With updatesOnly, return only posts changed after this time; not allowed with direction=down. */
                fromUpdateAt?: number;
                /** @description Paging direction, `down` (older to newer) or `up`; empty means down. */
                direction?: "up" | "down" | "";
                /** @description When true, only the listed posts are returned: channel pages leave out the root posts of the replies they list, and GetPostThread answers the post alone. Client4 always sends this parameter. */
                skipFetchThreads?: components["parameters"]["SkipFetchThreads"];
                /** @description Collapsed reply threads mode of the client: when true, channel views hold root posts only (paged and counted as roots), each with its thread's reply count, last reply time, participants and whether the caller follows it. Client4 always sends this parameter. */
                collapsedThreads?: components["parameters"]["CollapsedThreads"];
                /** @description With collapsed threads, the participants of each thread as whole (sanitized) users instead of `{id}`. Client4 always sends this parameter. */
                collapsedThreadsExtended?: components["parameters"]["CollapsedThreadsExtended"];
                /** @description When true, return only posts changed after fromUpdateAt (needs fromUpdateAt). */
                updatesOnly?: boolean;
            };
            header?: never;
            path: {
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The thread. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    PinPost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UnpinPost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    DoPostAction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
                /** @description The action's id (letters and digits). */
                action_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "selected_option": "prod"
                 *     }
                 */
                "application/json": {
                    /** @description For a select, the value chosen. */
                    selected_option?: string;
                    /** @description Mattermost's encrypted action cookie (for ephemeral posts); not used by Parley. */
                    cookie?: string;
                };
            };
        };
        responses: {
            /** @description The integration was called and its answer applied. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Always `OK`. */
                        status: string;
                        /** @description An id for this click (Mattermost opens interactive dialogs with it; Parley has none). */
                        trigger_id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetPostsByIds: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       "7gq4zhjtkpfk5mbd1y3wdfc6ro"
                 *     ]
                 */
                "application/json": (string | null)[];
            };
        };
        responses: {
            /** @description The posts found. */
            200: {
                headers: {
                    /** @description Creation time of the newest post hidden by plan limits; always 0 on this server. */
                    "First-Inaccessible-Post-Time"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Post"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetPinnedPosts: {
        parameters: {
            query?: never;
            header?: {
                /** @description An entity tag from an earlier response. If it still matches, the server answers 304 Not Modified without a body. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The pinned posts. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostList"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    SaveReaction: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "9x3pbdc5yjfexm8crfmnrmd1ec",
                 *       "post_id": "7gq4zhjtkpfk5mbd1y3wdfc6ro",
                 *       "emoji_name": "+1"
                 *     }
                 */
                "application/json": {
                    /** @description The caller's own user id. */
                    user_id?: string | null;
                    /** @description The post to react to. */
                    post_id?: string | null;
                    /** @description The emoji's name, without colons. */
                    emoji_name?: string | null;
                    /**
                     * Format: int64
                     * @description Accepted for compatibility; the server sets the time.
                     */
                    create_at?: number | null;
                };
            };
        };
        responses: {
            /** @description The reaction as stored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reaction"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetReactions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reactions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reaction"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    DeleteReaction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
                /** @description The emoji's name, without colons. */
                emoji_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reaction is not there any more. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetBulkReactions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       "7gq4zhjtkpfk5mbd1y3wdfc6ro"
                 *     ]
                 */
                "application/json": (string | null)[];
            };
        };
        responses: {
            /** @description The reactions, by post id. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: components["schemas"]["Reaction"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetPostsForChannel: {
        parameters: {
            query?: {
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
                /** @description Return the posts changed after this time, epoch milliseconds. */
                since?: number;
                /** @description Return the posts older than the post with this id. */
                before?: string;
                /** @description Return the posts newer than the post with this id. */
                after?: string;
                /** @description When true, deleted posts are included (system admins only). */
                include_deleted?: boolean;
                /** @description When true, only the listed posts are returned: channel pages leave out the root posts of the replies they list, and GetPostThread answers the post alone. Client4 always sends this parameter. */
                skipFetchThreads?: components["parameters"]["SkipFetchThreads"];
                /** @description Collapsed reply threads mode of the client: when true, channel views hold root posts only (paged and counted as roots), each with its thread's reply count, last reply time, participants and whether the caller follows it. Client4 always sends this parameter. */
                collapsedThreads?: components["parameters"]["CollapsedThreads"];
                /** @description With collapsed threads, the participants of each thread as whole (sanitized) users instead of `{id}`. Client4 always sends this parameter. */
                collapsedThreadsExtended?: components["parameters"]["CollapsedThreadsExtended"];
            };
            header?: {
                /** @description An entity tag from an earlier response. If it still matches, the server answers 304 Not Modified without a body. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The posts. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostList"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetFlaggedPostsForUser: {
        parameters: {
            query?: {
                /** @description Only posts of this team's channels (and of direct and group channels); empty means every team. */
                team_id?: string;
                /** @description Only posts of this channel (takes precedence over team_id); empty means every channel. */
                channel_id?: string;
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
            };
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The saved posts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    SetPostUnread: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "collapsed_threads_supported": true
                 *     }
                 */
                "application/json": {
                    /** @description Sent by Mattermost's apps; accepted and not used. */
                    collapsed_threads_supported?: boolean;
                };
            };
        };
        responses: {
            /** @description The membership's unread state as now stored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelUnreadAt"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetPostsAroundLastUnread: {
        parameters: {
            query?: {
                /** @description At most this many posts older than the first unread one (default 60; larger values are reduced to 200; negative values read as the default, as Mattermost does). Also the size of the latest-posts answer. */
                limit_before?: number;
                /** @description At most this many posts from the first unread one on, that post included (default 60; larger values are reduced to 200; negative values read as the default). 0 is refused: 400 `api.context.invalid_url_param.app_error`. */
                limit_after?: number;
                /** @description When true, only the listed posts are returned: channel pages leave out the root posts of the replies they list, and GetPostThread answers the post alone. Client4 always sends this parameter. */
                skipFetchThreads?: components["parameters"]["SkipFetchThreads"];
                /** @description Collapsed reply threads mode of the client: when true, channel views hold root posts only (paged and counted as roots), each with its thread's reply count, last reply time, participants and whether the caller follows it. Client4 always sends this parameter. */
                collapsedThreads?: components["parameters"]["CollapsedThreads"];
                /** @description With collapsed threads, the participants of each thread as whole (sanitized) users instead of `{id}`. Client4 always sends this parameter. */
                collapsedThreadsExtended?: components["parameters"]["CollapsedThreadsExtended"];
            };
            header?: {
                /** @description An entity tag from an earlier response. If it still matches, the server answers 304 Not Modified without a body. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The channel id (26 lower-case letters and digits). */
                channel_id: components["parameters"]["ChannelIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The posts around the first unread one, or the latest posts. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostList"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetPreferences: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The preferences. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Preference"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdatePreferences: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "user_id": "9x3pbdc5yjfexm8crfmnrmd1ec",
                 *         "category": "display_settings",
                 *         "name": "use_military_time",
                 *         "value": "true"
                 *       }
                 *     ]
                 */
                "application/json": ({
                    /** @description The path's user id. */
                    user_id?: string | null;
                    /** @description The preference's category. */
                    category?: string | null;
                    /** @description The preference's name within its category. */
                    name?: string | null;
                    /** @description The value to store. */
                    value?: string | null;
                } | null)[];
            };
        };
        responses: {
            /** @description Stored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    DeletePreferences: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "user_id": "9x3pbdc5yjfexm8crfmnrmd1ec",
                 *         "category": "display_settings",
                 *         "name": "use_military_time"
                 *       }
                 *     ]
                 */
                "application/json": ({
                    /** @description The path's user id. */
                    user_id?: string | null;
                    /** @description The preference's category. */
                    category?: string | null;
                    /** @description The preference's name within its category. */
                    name?: string | null;
                    /** @description Ignored. */
                    value?: string | null;
                } | null)[];
            };
        };
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetPreferencesByCategory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description A preference category. */
                category: components["parameters"]["PreferenceCategoryPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The preferences. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Preference"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetPreferencesByCategoryByName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description A preference category. */
                category: components["parameters"]["PreferenceCategoryPath"];
                /** @description A preference's name within its category. */
                preference_name: components["parameters"]["PreferenceNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The preference. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Preference"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetUserThreads: {
        parameters: {
            query?: {
                /** @description A thread id; return the threads before it. Client4 always sends it, empty when unused. */
                before?: string;
                /** @description A thread id; return the threads after it. Client4 always sends it, empty when unused. */
                after?: string;
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
                /** @description Participants as whole users. */
                extended?: boolean;
                /** @description Include threads whose root post was deleted. */
                deleted?: boolean;
                /** @description Only unread threads. */
                unread?: boolean;
                /** @description Only threads changed at or after this time, epoch milliseconds (0 = no filter). */
                since?: number;
                /** @description Only the totals (threads empty). */
                totalsOnly?: boolean;
                /** @description Only the threads (totals 0). */
                threadsOnly?: boolean;
            };
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The threads and totals. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserThreadList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateThreadsReadForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetUserThread: {
        parameters: {
            query?: {
                /** @description Participants as whole users. */
                extended?: boolean;
            };
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
                /** @description The thread's id, which is its root post's id (26 lower-case letters and digits). */
                thread_id: components["parameters"]["ThreadIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The thread. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserThread"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    StartFollowingThread: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
                /** @description The thread's id, which is its root post's id (26 lower-case letters and digits). */
                thread_id: components["parameters"]["ThreadIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Following. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    StopFollowingThread: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
                /** @description The thread's id, which is its root post's id (26 lower-case letters and digits). */
                thread_id: components["parameters"]["ThreadIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Not following. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateThreadReadForUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
                /** @description The thread's id, which is its root post's id (26 lower-case letters and digits). */
                thread_id: components["parameters"]["ThreadIdPath"];
                /** @description Read up to this time, epoch milliseconds. */
                timestamp: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The thread as now read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserThread"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    SetThreadUnreadByPostId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
                /** @description The thread's id, which is its root post's id (26 lower-case letters and digits). */
                thread_id: components["parameters"]["ThreadIdPath"];
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The thread as now read. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserThread"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UploadFile: {
        parameters: {
            query?: {
                /** @description The channel to upload to, instead of the `channel_id` form field (both must agree when both are given). */
                channel_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "channel_id": "4x9dgbfcwtf7zmhrkjoagiqp3e",
                 *       "client_ids": [
                 *         "6c2f6b0a-local-1"
                 *       ]
                 *     }
                 */
                "multipart/form-data": {
                    /** @description Id of the channel the files are for; must come before the first file. */
                    channel_id?: string;
                    /** @description Optional client-chosen ids, one per file in the same order (or none), returned in client_ids. */
                    client_ids?: string[];
                    /** @description The files, each with its file name in its part's Content-Disposition. */
                    files?: string[];
                };
            };
        };
        responses: {
            /** @description The uploaded files. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileUploadResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetFile: {
        parameters: {
            query?: {
                /** @description `1` or `true` (any of Go's true spellings) to have the file saved rather than shown (`Content-Disposition: attachment`). */
                download?: string;
            };
            header?: never;
            path: {
                /** @description The file id (26 lower-case letters and digits). */
                file_id: components["parameters"]["FileIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file. */
            200: {
                headers: {
                    /** @description `inline` for images, audio and video a browser shows safely, `attachment` for everything else and with `download`; with the file name (`filename` and `filename*`). */
                    "Content-Disposition"?: string;
                    /** @description The file's update_at. */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description The requested byte range (a single `Range: bytes=a-b`), with Content-Range. */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description Not modified since `If-Modified-Since`. */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetFileInfo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The file id (26 lower-case letters and digits). */
                file_id: components["parameters"]["FileIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file's metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileInfo"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetFileThumbnail: {
        parameters: {
            query?: {
                /** @description `1` or `true` (any of Go's true spellings) to have the file saved rather than shown (`Content-Disposition: attachment`). */
                download?: string;
            };
            header?: never;
            path: {
                /** @description The file id (26 lower-case letters and digits). */
                file_id: components["parameters"]["FileIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The thumbnail. */
            200: {
                headers: {
                    /** @description `inline` for images, audio and video a browser shows safely, `attachment` for everything else and with `download`; with the file name (`filename` and `filename*`). */
                    "Content-Disposition"?: string;
                    /** @description The file's update_at. */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description The requested byte range (a single `Range: bytes=a-b`), with Content-Range. */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description Not modified since `If-Modified-Since`. */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetFilePreview: {
        parameters: {
            query?: {
                /** @description `1` or `true` (any of Go's true spellings) to have the file saved rather than shown (`Content-Disposition: attachment`). */
                download?: string;
            };
            header?: never;
            path: {
                /** @description The file id (26 lower-case letters and digits). */
                file_id: components["parameters"]["FileIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The preview. */
            200: {
                headers: {
                    /** @description `inline` for images, audio and video a browser shows safely, `attachment` for everything else and with `download`; with the file name (`filename` and `filename*`). */
                    "Content-Disposition"?: string;
                    /** @description The file's update_at. */
                    "Last-Modified"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description The requested byte range (a single `Range: bytes=a-b`), with Content-Range. */
            206: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description Not modified since `If-Modified-Since`. */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetFileInfosForPost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The post id (26 lower-case letters and digits). */
                post_id: components["parameters"]["PostIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The post's files; empty when it has none. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileInfo"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    SearchPosts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "terms": "deploy from:alice after:2024-01-31",
                 *       "is_or_search": false,
                 *       "time_zone_offset": 3600,
                 *       "include_deleted_channels": false,
                 *       "page": 0,
                 *       "per_page": 60
                 *     }
                 */
                "application/json": {
                    /** @description What to search for, in the syntax above. */
                    terms: string;
                    /**
                     * @description Any word may match instead of every word.
                     * @default false
                     */
                    is_or_search?: boolean | null;
                    /**
                     * Format: int32
                     * @description The caller's time zone, in seconds east of UTC, for the dates in `terms`.
                     * @default 0
                     */
                    time_zone_offset?: number | null;
                    /**
                     * @description Search archived channels too.
                     * @default false
                     */
                    include_deleted_channels?: boolean | null;
                    /**
                     * Format: int32
                     * @description The page of results, from 0.
                     * @default 0
                     */
                    page?: number | null;
                    /**
                     * Format: int32
                     * @description Results per page (at most 200; larger values are reduced to 200).
                     * @default 60
                     */
                    per_page?: number | null;
                };
            };
        };
        responses: {
            /** @description The posts found. */
            200: {
                headers: {
                    /** @description Always `no-cache, no-store, must-revalidate`. */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostSearchResults"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetBots: {
        parameters: {
            query?: {
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
                /** @description Include disabled bots. */
                include_deleted?: boolean;
                /** @description Only bots whose owner is deactivated. */
                only_orphaned?: boolean;
            };
            header?: {
                /** @description An entity tag from an earlier response. If it still matches, the server answers 304 Not Modified without a body. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of bots. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bot"][];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    CreateBot: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "username": "deploy-bot",
                 *       "display_name": "Deploy",
                 *       "description": "Posts deployment results"
                 *     }
                 */
                "application/json": {
                    /** @description The bot's username (lower-cased), as a user's. */
                    username: string;
                    /** @description Display name, at most 64 characters. */
                    display_name?: string | null;
                    /** @description What the bot does, at most 1024 characters. */
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description The bot was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bot"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetBot: {
        parameters: {
            query?: {
                /** @description Also return the bot when it is disabled. */
                include_deleted?: boolean;
            };
            header?: {
                /** @description An entity tag from an earlier response. If it still matches, the server answers 304 Not Modified without a body. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description The bot's user id (26 lower-case letters and digits). */
                bot_user_id: components["parameters"]["BotUserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bot. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bot"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    PatchBot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bot's user id (26 lower-case letters and digits). */
                bot_user_id: components["parameters"]["BotUserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Deployments"
                 *     }
                 */
                "application/json": {
                    /** @description New username, as a user's. */
                    username?: string | null;
                    /** @description New display name, at most 64 characters. */
                    display_name?: string | null;
                    /** @description New description, at most 1024 characters. */
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description The bot after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bot"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    DisableBot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bot's user id (26 lower-case letters and digits). */
                bot_user_id: components["parameters"]["BotUserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bot. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bot"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    EnableBot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bot's user id (26 lower-case letters and digits). */
                bot_user_id: components["parameters"]["BotUserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bot. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bot"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    AssignBot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bot's user id (26 lower-case letters and digits). */
                bot_user_id: components["parameters"]["BotUserIdPath"];
                /** @description Id of the new owner. */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bot with its new owner. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bot"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ConvertBotToUser: {
        parameters: {
            query?: {
                /** @description Also give the user the system_admin role. */
                set_system_admin?: boolean;
            };
            header?: never;
            path: {
                /** @description The bot's user id (26 lower-case letters and digits). */
                bot_user_id: components["parameters"]["BotUserIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ops@example.com",
                 *       "password": "S3cure-passw0rd"
                 *     }
                 */
                "application/json": {
                    /** @description The user's password (required). */
                    password?: string | null;
                    /** @description New e-mail address (a bot's is `<username>@localhost`). */
                    email?: string | null;
                    /** @description New username. */
                    username?: string | null;
                    /** @description New given name. */
                    first_name?: string | null;
                    /** @description New family name. */
                    last_name?: string | null;
                    /** @description New nickname. */
                    nickname?: string | null;
                    /** @description New job title. */
                    position?: string | null;
                    /** @description New preferred language. */
                    locale?: string | null;
                };
            };
        };
        responses: {
            /** @description The user the bot became. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ConvertUserToBot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id (26 lower-case letters and digits), or the literal `me` for the user of the current session. */
                user_id: components["parameters"]["UserIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bot the user became. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bot"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetIncomingWebhooks: {
        parameters: {
            query?: {
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
                /** @description Only hooks of this team. */
                team_id?: string;
                /** @description When true the response is an object holding the page of items and the total number of matching items, instead of a bare array. */
                include_total_count?: components["parameters"]["IncludeTotalCount"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of hooks, bare or with the total count. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IncomingWebhook"][] | components["schemas"]["IncomingWebhookList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    CreateIncomingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "channel_id": "4x9dgbfcwtf7zmhrkjoagiqp3e",
                 *       "display_name": "CI",
                 *       "description": "ci hook",
                 *       "username": "ci-bot",
                 *       "icon_url": "",
                 *       "channel_locked": false
                 *     }
                 */
                "application/json": {
                    /** @description Id of the default channel; its team becomes the hook's team. */
                    channel_id: string;
                    /** @description Id of the owner; defaults to the caller. */
                    user_id?: string | null;
                    /** @description Name of the hook, at most 64 bytes. */
                    display_name?: string | null;
                    /** @description Free-text description, at most 500 bytes. */
                    description?: string | null;
                    /** @description Default username for posts, at most 64 characters and a valid username when not empty. */
                    username?: string | null;
                    /** @description Default profile picture URL for posts, at most 1024 bytes. */
                    icon_url?: string | null;
                    /** @description When true, payloads may only post to the default channel. */
                    channel_locked?: boolean | null;
                };
            };
        };
        responses: {
            /** @description The hook was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IncomingWebhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetIncomingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The incoming webhook id (26 lower-case letters and digits). It is also the secret key of the hook URL. */
                hook_id: components["parameters"]["HookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The hook. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IncomingWebhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateIncomingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The incoming webhook id (26 lower-case letters and digits). It is also the secret key of the hook URL. */
                hook_id: components["parameters"]["HookIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "8cb4qyxbtjf9inh8qmkwmyhsjr",
                 *       "channel_id": "4x9dgbfcwtf7zmhrkjoagiqp3e",
                 *       "display_name": "CI",
                 *       "description": "Build results for the release branch",
                 *       "channel_locked": true
                 *     }
                 */
                "application/json": {
                    /** @description Id of the hook; must equal hook_id in the path. */
                    id: string;
                    /** @description Id of the new default channel, in the hook's team. */
                    channel_id: string;
                    /** @description New name, at most 64 bytes. */
                    display_name?: string | null;
                    /** @description New description, at most 500 bytes. */
                    description?: string | null;
                    /** @description New default username; kept unchanged while username override is disabled. */
                    username?: string | null;
                    /** @description New default profile picture URL; kept unchanged while icon override is disabled. */
                    icon_url?: string | null;
                    /** @description Whether payloads may only post to the default channel. */
                    channel_locked?: boolean | null;
                    /** @description Sent by Client4; must be empty or the hook's current team. */
                    team_id?: string | null;
                    /** @description Sent by Client4; ignored (the owner cannot be changed here). */
                    user_id?: string | null;
                    /**
                     * Format: int64
                     * @description Sent by Client4; ignored.
                     */
                    create_at?: number | null;
                    /**
                     * Format: int64
                     * @description Sent by Client4; ignored.
                     */
                    update_at?: number | null;
                    /**
                     * Format: int64
                     * @description Sent by Client4; ignored.
                     */
                    delete_at?: number | null;
                };
            };
        };
        responses: {
            /** @description The updated hook. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IncomingWebhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    DeleteIncomingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The incoming webhook id (26 lower-case letters and digits). It is also the secret key of the hook URL. */
                hook_id: components["parameters"]["HookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The hook was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RegenIncomingHookSigningSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The incoming webhook id (26 lower-case letters and digits). It is also the secret key of the hook URL. */
                hook_id: components["parameters"]["HookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The hook with its new signing secret. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IncomingWebhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ExecuteIncomingWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry: a repeat with the same key to the same hook within 24 hours posts nothing and gets the first answer. 1 to 255 printable ASCII characters. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The secret key of the incoming webhook (its id). Only ASCII letters and digits match the route, as in Mattermost; a key that matches but belongs to no active hook gets 404. */
                hook_id: components["parameters"]["HookKeyPath"];
            };
            cookie?: never;
        };
        /** @description The message, in one of three encodings. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "text": "Build #42 passed :tada:",
                 *       "channel": "town-square",
                 *       "username": "ci-bot"
                 *     }
                 */
                "application/json": components["schemas"]["IncomingWebhookPayload"];
                /**
                 * @example {
                 *       "payload": "{\"text\":\"Build #42 passed\"}"
                 *     }
                 */
                "application/x-www-form-urlencoded": {
                    /** @description The JSON text of an IncomingWebhookPayload. */
                    payload: string;
                };
                /**
                 * @example {
                 *       "text": "Deploy of api-server v2.3.1 finished",
                 *       "username": "deploy-bot",
                 *       "channel": "town-square"
                 *     }
                 */
                "multipart/form-data": {
                    /** @description The JSON text of an IncomingWebhookPayload. */
                    payload?: string;
                    /** @description Markdown text of the post. */
                    text?: string;
                    /** @description Username override. */
                    username?: string;
                    /** @description Target channel name, `#name` or `@username`. */
                    channel?: string;
                    /** @description Profile picture URL override. */
                    icon_url?: string;
                    /** @description Emoji name used as the profile picture. */
                    icon_emoji?: string;
                    /** @description Post type; empty or starting with `custom_`, at most 64 characters. */
                    type?: string;
                    /** @description Id of a root post of the target channel, to post as a reply in its thread. */
                    root_id?: string;
                };
            };
        };
        responses: {
            /** @description The post (or all parts of a split post) has been stored. */
            200: {
                headers: {
                    /** @description The ids of the posts this request made, comma-separated, in order (one per part of a split message); for a replayed Idempotency-Key, those of the first request. */
                    "X-Post-Ids"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-Version-Id": components["headers"]["XVersionId"];
                    [name: string]: unknown;
                };
                content: {
                    /** @example ok */
                    "text/plain": string;
                };
            };
            /** @description The request cannot be used. Error ids: web.incoming_webhook.media_type.app_error (the Content-Type header cannot be parsed, or a JSON body starts with payload=); web.incoming_webhook.parse.app_error (the body or the payload field is missing or is not valid JSON, or a form-encoded body has no payload field); web.incoming_webhook.text.app_error (no text and no attachments); web.incoming_webhook.split_props_length.app_error (props too large to store); api.context.invalid_param.app_error (a field breaks a rule of IncomingWebhookPayload, such as a type not starting with custom_); api.post.create_post.can_not_post_to_deleted.error (the target channel is archived); api.post.create_post.root_id.app_error (root_id is not a root post of the target channel); api.post.create_post.post_priority.reply_not_allowed (priority on a reply); web.incoming_webhook.idempotency_key.app_error (an Idempotency-Key that is not 1 to 255 printable ASCII characters). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-Version-Id": components["headers"]["XVersionId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description The hook may not post there. Error ids: web.incoming_webhook.channel_locked.app_error (the hook is locked to its channel and the payload names another one, also for @username); web.incoming_webhook.permissions.app_error (the target channel is not public and the hook's creator is not a member); web.incoming_webhook.user.app_error (the hook's creator no longer exists). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-Version-Id": components["headers"]["XVersionId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Nothing to post to. Error ids: web.incoming_webhook.invalid.app_error (no active hook has this key; the answer is the same for keys that never existed and for deleted hooks, and the key is never echoed); web.incoming_webhook.channel.app_error (the channel named in the payload does not exist in the hook's team); web.incoming_webhook.user.app_error (the payload's channel is @username and no such user exists). */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-Version-Id": components["headers"]["XVersionId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            413: components["responses"]["TooLarge"];
            /** @description The hook posts faster than RateLimitSettings.WebhookPerSec allows (error id web.incoming_webhook.rate_limit.app_error), or the API rate limit is on and exceeded: nothing was posted; send again after Retry-After seconds. */
            429: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-Version-Id": components["headers"]["XVersionId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            500: components["responses"]["InternalServerError"];
            /** @description Incoming webhooks are switched off (ServiceSettings.EnableIncomingWebhooks=false). Error id: web.incoming_webhook.disabled.app_error. */
            501: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-Version-Id": components["headers"]["XVersionId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ListCommands: {
        parameters: {
            query?: {
                /** @description The team (required; a missing one is 400 `api.context.invalid_param.app_error`). */
                team_id?: string;
                /** @description true lists only the team's custom commands, unsanitized. */
                custom_only?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The commands. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Command"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    CreateCommand: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CommandInput"];
            };
        };
        responses: {
            /** @description The command, with its token. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Command"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ExecuteCommand: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "channel_id": "8wtt1ih9sf8ixnt4h4bqx4pwkr",
                 *       "command": "/echo hello"
                 *     }
                 */
                "application/json": {
                    /** @description The channel the command runs in. */
                    channel_id?: string | null;
                    /** @description The command line, starting with "/". */
                    command?: string | null;
                    /** @description The team, for a direct or group channel (a team channel's own team is used otherwise). */
                    team_id?: string | null;
                    /** @description The thread the command was typed in; replies go there. */
                    root_id?: string | null;
                    /** @description Ignored (older clients send the post replied to). */
                    parent_id?: string | null;
                };
            };
        };
        responses: {
            /** @description The command's response. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "response_type": "in_channel",
                     *       "text": "Deploying api to production.",
                     *       "goto_location": "",
                     *       "trigger_id": "8wtt1ih9sf8ixnt4h4bqx4pwkr"
                     *     }
                     */
                    "application/json": components["schemas"]["CommandResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetCommandById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The slash command id (26 lower-case letters and digits). */
                command_id: components["parameters"]["CommandIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The command. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Command"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateCommand: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The slash command id (26 lower-case letters and digits). */
                command_id: components["parameters"]["CommandIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CommandInput"];
            };
        };
        responses: {
            /** @description The updated command. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Command"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    DeleteCommand: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The slash command id (26 lower-case letters and digits). */
                command_id: components["parameters"]["CommandIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    MoveCommand: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The slash command id (26 lower-case letters and digits). */
                command_id: components["parameters"]["CommandIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "team_id": "4xp9fdt77pncbef59f4k1qe83o"
                 *     }
                 */
                "application/json": {
                    /** @description The team to move the command to. */
                    team_id?: string | null;
                };
            };
        };
        responses: {
            /** @description Moved. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RegenCommandToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The slash command id (26 lower-case letters and digits). */
                command_id: components["parameters"]["CommandIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The command's new token (26 characters). */
                        token: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetCommandDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The slash command id (26 lower-case letters and digits). */
                command_id: components["parameters"]["CommandIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deliveries, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IntegrationDelivery"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ListAutocompleteCommands: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The commands. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Command"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ListCommandAutocompleteSuggestions: {
        parameters: {
            query?: {
                /** @description What the user has typed (required). */
                user_input?: string;
                /** @description The channel it is typed in (accepted; not needed for these suggestions). */
                channel_id?: string;
                /** @description The thread it is typed in (accepted; not needed for these suggestions). */
                root_id?: string;
            };
            header?: never;
            path: {
                /** @description The team id (26 lower-case letters and digits). */
                team_id: components["parameters"]["TeamIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The suggestions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AutocompleteSuggestion"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ExecuteCommandWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The response URL's id. */
                hook_id: string;
            };
            cookie?: never;
        };
        /** @description The reply. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "response_type": "in_channel",
                 *       "text": "Deployed api to production."
                 *     }
                 */
                "application/json": components["schemas"]["CommandResponse"];
                /** @example Deployed api to production. */
                "text/plain": string;
            };
        };
        responses: {
            /** @description The reply was handled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "ok";
                };
            };
            400: components["responses"]["BadRequest"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetOutgoingWebhooks: {
        parameters: {
            query?: {
                /** @description Zero-based page number. */
                page?: components["parameters"]["Page"];
                /** @description Number of items per page. Values above 200 are silently reduced to 200, as Mattermost does; 0 returns an empty page. */
                per_page?: components["parameters"]["PerPage"];
                /** @description Only hooks of this team. */
                team_id?: string;
                /** @description Only hooks bound to this channel. */
                channel_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of hooks. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutgoingWebhook"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    CreateOutgoingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "team_id": "8cb4qyxbtjf9inh8qmkwmyhsjr",
                 *       "channel_id": "4x9dgbfcwtf7zmhrkjoagiqp3e",
                 *       "display_name": "Deploy bot",
                 *       "trigger_words": [
                 *         "deploy"
                 *       ],
                 *       "trigger_when": 0,
                 *       "callback_urls": [
                 *         "https://bots.example.com/deploy"
                 *       ],
                 *       "content_type": "application/json"
                 *     }
                 */
                "application/json": components["schemas"]["OutgoingWebhookInput"] & Record<string, never>;
            };
        };
        responses: {
            /** @description The hook was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutgoingWebhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetOutgoingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The outgoing webhook id (26 lower-case letters and digits). */
                hook_id: components["parameters"]["OutgoingHookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The hook. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutgoingWebhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    UpdateOutgoingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The outgoing webhook id (26 lower-case letters and digits). */
                hook_id: components["parameters"]["OutgoingHookIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "8cb4qyxbtjf9inh8qmkwmyhsjr",
                 *       "channel_id": "4x9dgbfcwtf7zmhrkjoagiqp3e",
                 *       "trigger_words": [
                 *         "deploy",
                 *         "ship"
                 *       ],
                 *       "callback_urls": [
                 *         "https://bots.example.com/deploy"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["OutgoingWebhookInput"] & {
                    /** @description Id of the hook; must equal hook_id in the path. */
                    id: string;
                };
            };
        };
        responses: {
            /** @description The updated hook. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutgoingWebhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    DeleteOutgoingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The outgoing webhook id (26 lower-case letters and digits). */
                hook_id: components["parameters"]["OutgoingHookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The hook was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RegenOutgoingHookToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The outgoing webhook id (26 lower-case letters and digits). */
                hook_id: components["parameters"]["OutgoingHookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The hook with its new token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutgoingWebhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    GetOutgoingWebhookDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The outgoing webhook id (26 lower-case letters and digits). */
                hook_id: components["parameters"]["OutgoingHookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attempts, newest first (at most 100). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IntegrationDelivery"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    RedeliverOutgoingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The outgoing webhook id (26 lower-case letters and digits). */
                hook_id: components["parameters"]["OutgoingHookIdPath"];
                /** @description The id of one recorded delivery attempt (26 lower-case letters and digits). */
                delivery_id: components["parameters"]["DeliveryIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The call is queued. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusOK"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["TooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            501: components["responses"]["NotImplemented"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
}
