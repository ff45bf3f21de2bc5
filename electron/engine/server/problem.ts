import type { Problem } from '../../../shared/workbench/transport';

/**
 * RFC 7807 problem details: the one error shape every route answers with (docs/api.md, Errors).
 * Throw an ApiProblem anywhere below a route; the server turns it into the response.
 */
const TITLES: Record<number, string> = {
  400: 'One or more validation errors occurred.',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  507: 'Insufficient Storage',
};

export class ApiProblem extends Error {
  readonly status: number;
  readonly detail?: string;
  readonly errors?: Record<string, string[]>;

  constructor(status: number, detail?: string, errors?: Record<string, string[]>) {
    // A client's mistake needs no stack trace, and capturing one costs more than answering the request.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(detail ?? TITLES[status] ?? `HTTP ${status}`);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiProblem';
    this.status = status;
    this.detail = detail;
    this.errors = errors;
  }

  toBody(): Problem {
    const body: Problem = { type: 'about:blank', title: TITLES[this.status] ?? 'Error', status: this.status };
    if (this.detail !== undefined) body.detail = this.detail;
    if (this.errors !== undefined) body.errors = this.errors;
    return body;
  }
}

/** A 400 naming the offending fields, e.g. `validationProblem({'data.number': ['fails the Luhn check']})`. */
export function validationProblem(errors: Record<string, string[]>, detail?: string): ApiProblem {
  const first = Object.entries(errors)[0];
  return new ApiProblem(400, detail ?? (first ? `${first[0]}: ${first[1][0]}` : undefined), errors);
}
