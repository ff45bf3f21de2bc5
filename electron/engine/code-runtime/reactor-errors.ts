/*
 * Tokenbench's own implementation of the error classes that code transforms and reactors require as
 * `@basis-theory/basis-theory-reactor-formulas-sdk-js` (vendor-surfaces.md §2.7; the vendor's package is not licensed
 * for reuse). Code throws these to choose the status and problem details of its answer.
 */

const FALLBACK = 'Something went wrong. Please try again. If the problem persists, please contact support@basistheory.com.';

/** A value that is neither an object nor nothing, as the vendor's module writes it: its `toString()`. */
const text = (value: unknown) => (value as { toString(): string }).toString();

/** A list entry: objects as JSON, nothing as the fallback message, anything else as its string. */
const entry = (item: unknown): string => {
  if (item === null || item === undefined) return FALLBACK;
  return typeof item === 'object' ? JSON.stringify(item) : text(item);
};

/** The constructor argument as the `errors` map of problem details: a property name to a list of messages. */
export function errorsOf(argument: unknown): Record<string, string[]> {
  if (typeof argument === 'string') return { error: [argument] };
  if (Array.isArray(argument)) return { error: argument.map(entry) };
  if (argument instanceof Error) return { error: [argument.message] };
  if (argument !== null && typeof argument === 'object') {
    return Object.fromEntries(
      Object.entries(argument).map(([name, value]) => {
        if (Array.isArray(value)) return [name, value.map(entry)];
        if (value !== null && typeof value === 'object') return [name, [JSON.stringify(value)]];
        return [name, [value ? text(value) : FALLBACK]];
      }),
    );
  }
  return { error: [argument ? text(argument) : FALLBACK] };
}

class BasisTheoryReactorError extends Error {
  status: number;
  errors: Record<string, string[]>;

  constructor({ message, status, errors }: { message?: string; status: number; errors?: unknown }) {
    super(message);
    this.name = 'BasisTheoryReactorError';
    this.status = status;
    this.errors = errorsOf(errors);
  }

  toRFC7807() {
    return { detail: this.message, status: this.status, errors: this.errors };
  }
}

/** A subclass with a fixed status and detail, taking its `errors` as its one argument. */
function reactorError(name: string, status: number, detail: string) {
  const named = {
    [name]: class extends BasisTheoryReactorError {
      constructor(errors?: unknown) {
        super({ message: detail, status, errors });
        this.name = name;
      }
    },
  };
  return named[name];
}

const reactorErrors = [
  BasisTheoryReactorError,
  reactorError('AuthenticationError', 401, 'Authentication Failed'),
  reactorError('AuthorizationError', 403, 'Forbidden'),
  reactorError('BadRequestError', 400, 'Bad Request'),
  reactorError('InvalidPaymentMethodError', 402, 'Invalid Payment Method'),
  reactorError('InvalidReactorConfigurationError', 400, 'Invalid Reactor Configuration'),
  reactorError('RateLimitError', 429, 'Rate Limit Exceeded'),
  reactorError('ReactorRuntimeError', 500, 'Reactor Runtime Error'),
  reactorError('ServiceUnavailableError', 503, 'Service Unavailable'),
];

/** The answer code chooses whole: its status (an integer 100–599, else this throws), headers and body. */
class CustomHttpResponseError extends Error {
  status: number;
  headers: Record<string, string>;
  body: unknown;

  constructor({ status, headers, body }: { status: number; headers?: Record<string, string>; body?: unknown }) {
    super();
    this.name = 'CustomHttpResponseError';
    if (!Number.isInteger(status) || status < 100 || status > 599) throw new Error(`status must be an integer from 100 to 599, got ${String(status)}`);
    this.status = status;
    this.headers = headers ?? {};
    this.body = body ?? {};
  }

  toResponseBody() {
    return { status: this.status, headers: this.headers, body: this.body };
  }
}

/** What `require` of the vendor's module name gives code. */
export const reactorErrorsModule = Object.freeze({
  ...Object.fromEntries(reactorErrors.map((error) => [error.name, error])),
  CustomHttpResponseError,
});

