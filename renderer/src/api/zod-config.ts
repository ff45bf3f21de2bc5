import { z } from 'zod';

// zod would probe for eval (new Function) to compile faster parsers; the page's CSP forbids it and reports the probe.
// Imported first by main.tsx, before any module builds a schema.
z.config({ jitless: true });
