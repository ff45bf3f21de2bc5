import { KEY_VARIABLE, SNIPPET_WRITERS } from '../../../../shared/snippets/request-snippet';
import { reactRequest } from '../../../../shared/workbench/reactor-contract';
import { useEngineStore } from '../../state/engine-store';
import { SnippetPanel } from '../proxies/SnippetPanel';

/** The args as a JavaScript value: JSON laid out as the SDK call's argument, or the text as typed when it is no JSON. */
function argsLiteral(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2).replaceAll('\n', '\n  ');
  } catch {
    return args;
  }
}

/** The Node SDK's call of this reactor, its key read from the environment. */
const sdkSnippet = (baseUrl: string, id: string, args: string) => `import { BasisTheoryClient } from '@basis-theory/node-sdk';

const client = new BasisTheoryClient({ apiKey: process.env.${KEY_VARIABLE}, baseUrl: '${baseUrl}' });
const result = await client.reactors.react('${id}', {
  args: ${argsLiteral(args)},
});
console.log(result.raw, result.tokens);
`;

/**
 * How a client invokes this reactor, as code to copy: POST /reactors/{id}/react with the args Try holds, by cURL and by
 * the vendor's Node SDK (`client.reactors.react`); the key is read from the environment, never written in.
 */
export function ReactorSnippet({ reactor, args }: { reactor: { id: string }; args: string }) {
  const status = useEngineStore((state) => state.status);
  if (!status) return null;
  const { path, ...react } = reactRequest(reactor.id, args);
  const request = { ...react, url: status.url + path };
  return (
    <SnippetPanel
      snippets={{ cURL: SNIPPET_WRITERS.curl(request, { header: `${status.headerPrefix}-API-KEY`, value: null }), 'Node SDK': sdkSnippet(status.url, reactor.id, args) }}
      hint={
        <>
          Set <code>{KEY_VARIABLE}</code> to the key of a private application with <code>reactor:invoke</code> (or <code>token:use</code>) on the tokens the args name.
        </>
      }
    />
  );
}
