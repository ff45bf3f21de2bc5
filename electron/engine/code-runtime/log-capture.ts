import { format, inspect } from 'node:util';
import type { CodeLog, LogLevel } from './code-call';

export interface LogLimits {
  /** Lines kept per invocation; the rest are counted in one closing line. */
  lines: number;
  /** Characters kept per invocation over all lines; a line that does not fit is cut. */
  chars: number;
}

export const DEFAULT_LOG_LIMITS: LogLimits = { lines: 100, chars: 20_000 };

/**
 * The `console` and `logger` one invocation's code writes to. Each line kept (within the limits) goes to `emit` as it
 * is written, so the lines before a loop that never ends still reach the engine. Once the invocation has ended, late
 * lines (a timer the code left behind) are dropped.
 */
export class LogCapture {
  private lines = 0;
  private chars = 0;
  private dropped = 0;
  private open = true;
  private readonly started = performance.now();

  constructor(
    private readonly limits: LogLimits,
    private readonly emit: (log: CodeLog) => void,
  ) {}

  private at() {
    return Math.round(performance.now() - this.started);
  }

  private write(level: LogLevel, message: string): void {
    if (!this.open) return;
    const room = this.limits.chars - this.chars;
    if (this.lines >= this.limits.lines || room <= 0) {
      this.dropped++;
      return;
    }
    const kept = message.length > room ? `${message.slice(0, room)}…` : message;
    this.lines++;
    this.chars += kept.length;
    this.emit({ level, message: kept, atMs: this.at() });
  }

  private writer(level: LogLevel) {
    return (...args: unknown[]) => this.write(level, format(...args));
  }

  /** A stand-in for `console`: the methods code commonly calls, each a line of its level. */
  console() {
    const log = this.writer('log');
    return {
      log,
      info: this.writer('info'),
      warn: this.writer('warn'),
      error: this.writer('error'),
      debug: this.writer('debug'),
      trace: this.writer('debug'),
      dir: (value: unknown) => log(inspect(value)),
      table: (value: unknown) => log(inspect(value)),
    };
  }

  /** node22's `event.logger`. */
  logger() {
    return { info: this.writer('info'), warn: this.writer('warn'), error: this.writer('error'), debug: this.writer('debug') };
  }

  /** Ends the capture, with a line saying how many were not kept, if any. */
  close(): void {
    if (this.dropped > 0) {
      const { lines, chars } = this.limits;
      const message = `${this.dropped} more line(s) not kept: an invocation keeps ${lines} lines and ${chars} characters of log`;
      this.emit({ level: 'warn', message, atMs: this.at() });
    }
    this.open = false;
  }
}
