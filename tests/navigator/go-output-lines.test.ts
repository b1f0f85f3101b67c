import { describe, expect, it } from 'vitest';
import { readIssue } from '../../src/navigator/retrieval/evidence/read-issue.js';
import { goOutputMessages } from '../../src/navigator/retrieval/evidence/resolvers/go-output-lines.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A Go auth client: every file speaks of tokens, clients, refreshing and sessions; one of them (auth/renew.go) prints
// the message the issue's log shows, with a placeholder for the client's id. The words of the message alone are
// everywhere; their order is only in the file that prints it.
const REPO = {
  'go.mod': 'module example.com/auth\n\ngo 1.21\n',
  'auth/renew.go':
    'package auth\n\nimport "fmt"\n\n// renew asks for a new grant.\nfunc renew(id string, expired bool) error {\n\tif expired {\n\t\treturn fmt.Errorf("cannot refresh token for client %s", id)\n\t}\n\treturn nil\n}\n',
  'auth/token.go':
    'package auth\n\n// Token is a client token; the client refreshes the token before the token expires, and a refresh of the token\n// renews the session of the client. A token of a client is refreshed by the client, the session keeps the token.\ntype Token struct {\n\tClient  string\n\tSession string\n}\n\n// Refresh refreshes the token of the client and the session of the token.\nfunc (t *Token) Refresh(client string) error {\n\tt.Client = client\n\treturn nil\n}\n',
  'auth/client.go':
    'package auth\n\n// Client holds the token of a client and refreshes the token of its session; a client without a token refreshes it.\ntype Client struct {\n\ttoken *Token\n}\n\n// RefreshToken refreshes the client token for the session of the client.\nfunc (c *Client) RefreshToken() error {\n\treturn c.token.Refresh("client")\n}\n',
  'auth/session.go':
    'package auth\n\n// Session keeps the token of the client; the token is refreshed when the session of the client refreshes.\ntype Session struct {\n\ttoken *Token\n}\n\n// Refresh refreshes the session token for the client.\nfunc (s *Session) Refresh() error {\n\treturn s.token.Refresh("session")\n}\n',
  ...filler('store', 'go', 8, (i) => `package store\n\n// Part${i} stores the token of a client session.\nfunc Part${i}(token string) int {\n\treturn len(token) + ${i}\n}\n`),
};

const ISSUE = `Clients are logged out every hour

Since the last upgrade our users are logged out after an hour, the client does not get a new token when the old token expires, and every session of every client ends at the same time. The token refresh seems to fail for every client, but only for clients whose token expired.

Our service logs:

\`\`\`
{"level":"warn","ts":1718100302.41,"caller":"session/keeper.go:88","msg":"session ended","error":"keeper: cannot refresh token for client web-7f3a"}
2024/06/11 10:05:02 proxy: upstream auth: cannot refresh token for client mobile-02
\`\`\`

We expected the token of the client to be refreshed and the session of the client to continue.`;

describe("Go programs' output read as messages (the go-output-lines resolver)", () => {
  it('reads the layers of a wrapped error (three words or more) from JSON records and standard-log lines', () => {
    expect(goOutputMessages(readIssue(ISSUE))).toEqual(['cannot refresh token for client web-7f3a', 'cannot refresh token for client mobile-02']);
  });

  it('a log line whose words are everywhere finds the file that prints it first (NAVKERNEL_ABLATE=go-output-lines leaves it below the files about tokens and clients)', async () => {
    const root = writeRepo(REPO);
    const { files, outcome } = await loadedFiles(root, ISSUE);
    expect(files[0]).toBe('auth/renew.go');
    expect(JSON.stringify(outcome.artifacts)).toContain('message \\"cannot refresh token for client');
  });
});
