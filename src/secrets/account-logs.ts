/**
 * A user's account Durable Object as the owner of its console lines (log-context.ts): a line its
 * work writes passes a redactor of the Worker's secrets and that user's account secrets alone, not
 * every live thread's (src/secrets/redact-logs.ts).
 *
 * Why that is every secret such a line can hold: the account's code reads its own storage (the
 * user's env values, retired secrets), the Worker's env, and what threads and the Worker send it.
 * Threads send ids, counts, model names, budgets and the OAuth token a server refused; a thread's
 * answers to it (`accountEnvChanged`, `accountBudgetsSet`) are `{ live }` and reservation requests,
 * and a failure of theirs reaches it as a WeftError naming the thread, which it answers and never
 * logs. It logs only an unexpected throw of its own code (`rpc`, src/rpc.ts), whose text is the
 * runtime's (SQLite, crypto, structured clone) or its own. OAuth tokens and user-added MCP servers'
 * headers it reads are in no log redactor, its own or a thread's (as before it had one).
 * @module
 */
import { UserAccount } from "../account/durable.js";
import { LogOwner } from "./log-owners.js";
import { accountSecrets } from "./user-env.js";

const owners = new WeakMap<UserAccount, LogOwner>();

/** The log owner of `account`, made at its first entry (weak: an evicted object takes it with it). */
export function accountLogOwner(account: UserAccount): LogOwner {
  let owner = owners.get(account);
  if (!owner) {
    const levels = UserAccount.logLevels(account);
    owner = new LogOwner(levels.workerEnv, {
      version: levels.version,
      secrets: () => {
        const { values, retired } = levels.read();
        return accountSecrets(values, retired);
      },
    });
    owners.set(account, owner);
  }
  return owner;
}
