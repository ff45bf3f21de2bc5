/**
 * How a receiver verifies a webhook delivery's signature (docs/api.md, Webhooks), as code to copy: RSA-PSS with SHA-256
 * over the body's bytes as sent (already canonical: keys sorted, no whitespace), with the public key the engine serves.
 * A Node receiver that verifies each delivery before reading it, and a cURL + openssl check of one saved delivery.
 */

export interface VerifyTarget {
  /** Where the engine serves the public key (GET /keys/webhooks.v1.key). */
  keyUrl: string;
  /** The prefix of the signature header (`BT-SIGNATURE`). */
  headerPrefix: string;
  /** The webhook's URL: the Node receiver listens on its port (3000 when it names none). */
  webhookUrl: string;
}

const DEFAULT_PORT = 3000;

function portOf(url: string): number {
  try {
    return Number(new URL(url).port) || DEFAULT_PORT;
  } catch {
    return DEFAULT_PORT;
  }
}

const node = ({ keyUrl, headerPrefix, webhookUrl }: VerifyTarget) => {
  const port = portOf(webhookUrl);
  return `// receiver.mjs: node receiver.mjs
import { createServer } from 'node:http';
import { constants, createPublicKey, verify } from 'node:crypto';

// Every delivery is signed with this Tokenbench's key: read it once from where it is served.
const key = createPublicKey(await (await fetch('${keyUrl}')).text());
const pss = { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO };

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    // The signature covers the body's bytes as sent: verify them before parsing.
    const body = Buffer.concat(chunks);
    const signature = Buffer.from(String(req.headers['${headerPrefix.toLowerCase()}-signature'] ?? ''), 'base64');
    if (!verify('sha256', body, pss, signature)) {
      console.log('refused: the signature does not verify');
      return res.writeHead(401).end();
    }
    const { event } = JSON.parse(body.toString('utf8'));
    console.log('verified', event.type, event.id);
    res.writeHead(200).end();
  });
}).listen(${port}, () => console.log('listening on port ${port}'));
`;
};

const openssl = ({ keyUrl, headerPrefix }: VerifyTarget) => `# The key every delivery is signed with, as this Tokenbench serves it
curl -sS '${keyUrl}' -o webhooks.v1.key
# body.json: a delivery's body, byte for byte as received; $SIGNATURE: its ${headerPrefix}-SIGNATURE header
printf '%s' "$SIGNATURE" | openssl base64 -d -A -out signature.bin
openssl dgst -sha256 -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:auto -verify webhooks.v1.key -signature signature.bin body.json
`;

/** The snippets by the label the page shows them under. */
export function verifySnippets(target: VerifyTarget): { node: string; 'cURL + openssl': string } {
  return { node: node(target), 'cURL + openssl': openssl(target) };
}
