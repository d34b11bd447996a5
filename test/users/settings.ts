/** The users project's sign-in settings (vitest.config.ts gives them to the Worker; the tests sign tokens for them). */
export const USERS_ISSUER = "https://id.example.test/";
export const USERS_AUDIENCE = "edge-agent-users-tests";
export const USERS_API_TOKEN = "users-operator-token-0123456789";
