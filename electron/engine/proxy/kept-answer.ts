import { isUtf8 } from 'node:buffer';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import type { ProxyDetails } from '../../../shared/workbench/history-contract';
import { maskCardNumbers } from '../history/card-numbers';
import type { EchoedValues } from './echoed-values';

/** What the entry says of the answer body; its masked text, when kept, is stored apart (see HistoryStore). */
type AnswerFacts = NonNullable<NonNullable<ProxyDetails['response']>['body']>;
interface KeptAnswer {
  facts: AnswerFacts;
  text: string | null;
}

/**
 * The destination's answer body while the proxy streams it to the client, when Settings has history keep answers:
 * its chunks as they are (the client's copy holds them as well), up to the bound; past it, only that it went past.
 * Decoding and masking wait until the client has its answer (keptAnswer).
 */
export class AnswerCapture {
  readonly chunks: Buffer[] = [];
  private size = 0;
  over = false;

  constructor(readonly bound: number) {}

  add(chunk: Buffer): void {
    if (this.over) return;
    this.size += chunk.length;
    if (this.size <= this.bound) this.chunks.push(chunk);
    else {
      this.over = true;
      this.chunks.length = 0;
    }
  }
}

/** A size as the note says it, exactly: `102,417 bytes`. */
const bytes = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'byte' : 'bytes'}`;

const notKept = (why: string): KeptAnswer => ({ facts: { bytes: null, masked: 0, not_kept: `not kept: ${why}` }, text: null });

/** The Content-Encodings history reads; a decoder stops with a RangeError past `maxOutputLength`. */
const DECODERS: Record<string, (body: Buffer, options: { maxOutputLength: number }) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  br: brotliDecompressSync,
  // Some servers send raw DEFLATE under this name, without the zlib wrapper the standard asks for.
  deflate: (body, options) => {
    try {
      return inflateSync(body, options);
    } catch (error) {
      if (error instanceof RangeError) throw error;
      return inflateRawSync(body, options);
    }
  },
};

const headerOf = (headers: readonly string[], name: string): string | undefined => {
  for (let i = 0; i < headers.length; i += 2) if (headers[i].toLowerCase() === name) return headers[i + 1];
  return undefined;
};

/**
 * What history keeps of an answer body: its text, decoded and masked here, before anything is written: every form of
 * every value the request detokenized (echoes, whole, so each shows its token's mask), then every other card number
 * (maskCardNumbers). An answer over the bound, cut off, or not UTF-8 text is kept as a note of why, never as bytes.
 */
export function keptAnswer(
  capture: AnswerCapture,
  answer: { headers: readonly string[]; bytes: number },
  echoes: EchoedValues | undefined,
  cutOff: boolean,
): KeptAnswer {
  const bound = `${capture.bound.toLocaleString('en')}-byte bound`;
  if (cutOff) return notKept(`the destination broke off its answer after ${bytes(answer.bytes)}`);
  if (capture.over) return notKept(`${bytes(answer.bytes)}, over the ${bound}`);
  let body: Buffer = Buffer.concat(capture.chunks);
  const encoding = headerOf(answer.headers, 'content-encoding')?.trim().toLowerCase() ?? 'identity';
  if (encoding !== 'identity' && body.length > 0) {
    const decode = DECODERS[encoding];
    if (!decode) return notKept(`${bytes(answer.bytes)} encoded as ${encoding}, which history does not decode`);
    try {
      body = decode(body, { maxOutputLength: capture.bound });
    } catch (error) {
      return notKept(error instanceof RangeError ? `over the ${bound} once decoded (${encoding})` : `its ${encoding} encoding could not be read`);
    }
  }
  if (!isUtf8(body)) {
    const type = headerOf(answer.headers, 'content-type')?.split(';')[0].trim();
    return notKept(`${bytes(body.length)}${type ? ` of ${type}` : ''}, not UTF-8 text`);
  }
  // The masks are ASCII, so the masked bytes stay UTF-8.
  const values = echoes?.maskLatin1(body.toString('latin1'));
  const cards = maskCardNumbers(values ? Buffer.from(values.text, 'latin1').toString('utf8') : body.toString('utf8'));
  return { facts: { bytes: Buffer.byteLength(cards.text), masked: cards.masked + (values?.masked ?? 0), not_kept: null }, text: cards.text };
}
