/**
 * The test users' API keys (test/wrangler.toml holds their SHA-256 hashes); `root` is an admin.
 * Plain data, importable from workerd suites and Node suites alike.
 * @module
 */
export const API_KEYS = { tester: "test-key-tester", alice: "test-key-alice", bob: "test-key-bob", root: "test-key-admin" } as const;
