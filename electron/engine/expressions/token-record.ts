/** A plaintext token as the vault hands it over, after its permission checks. */
export interface TokenRecord {
  id: string;
  type: string;
  data: unknown;
  containers: string[];
  metadata: Record<string, string>;
  fingerprint?: string | null;
  mask?: unknown;
  expires_at?: string | null;
  created_at?: string;
  card?: unknown;
  [k: string]: unknown;
}
