// @ts-check
/**
 * What the page remembers across reloads, in localStorage: the current session's id and key (so a reload
 * restores it; no key for one of the user's sessions, which their token opens), the "require approval" toggle, an optional API token and a signed-in user's token (the
 * app that embeds the page may put it under "edge-agent.userToken", or pass it once as `#token=` in the
 * URL, which never reaches a server). Storage failures (private mode,
 * quota) are ignored: the page then works for this visit only.
 */
const SESSION_KEY = "edge-agent.session";
const APPROVAL_KEY = "edge-agent.requireApproval";
const TOKEN_KEY = "edge-agent.apiToken";
const USER_TOKEN_KEY = "edge-agent.userToken";

/** @returns {{ id: string; key: string } | undefined} */
export function loadSession() {
  try {
    const value = JSON.parse(localStorage.getItem(SESSION_KEY) ?? "null");
    return typeof value?.id === "string" && typeof value?.key === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @param {string} id
 * @param {string} key
 */
export function saveSession(id, key) {
  write(SESSION_KEY, JSON.stringify({ id, key }));
}

export function forgetSession() {
  try {
    localStorage.removeItem(SESSION_KEY);
  } catch {
    // nothing remembered, nothing to forget
  }
}

export const loadRequireApproval = () => read(APPROVAL_KEY) === "true";
export const saveRequireApproval = (/** @type {boolean} */ on) => write(APPROVAL_KEY, String(Boolean(on)));
export const loadApiToken = () => read(TOKEN_KEY) ?? "";
export const saveApiToken = (/** @type {string} */ token) => write(TOKEN_KEY, token);
export const loadUserToken = () => read(USER_TOKEN_KEY) ?? "";
export const saveUserToken = (/** @type {string} */ token) => write(USER_TOKEN_KEY, token);

/** @param {string} key */
function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * @param {string} key
 * @param {string} value
 */
function write(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // see the header: storage is best effort
  }
}
