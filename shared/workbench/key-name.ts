/** A key's last four characters as the workbench writes them wherever it names a key: "…1a2b". */
export const lastFour = (last4: string): string => `…${last4}`;

/** How a key is named in Settings, the Composer and History: by its last four; a key made before they were kept, by its id. */
export const keyName = ({ id, key_last4 }: { id: string; key_last4: string | null }): string => (key_last4 === null ? id : lastFour(key_last4));
