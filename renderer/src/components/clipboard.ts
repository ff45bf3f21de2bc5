/** Writes `text` to the clipboard, which a browser offers only to secure pages (https, or localhost): elsewhere it says so. */
export function copyText(text: string): Promise<void> {
  if (!navigator.clipboard) {
    return Promise.reject(new Error('This browser lets only https and localhost pages copy: select the text and press Ctrl+C'));
  }
  return navigator.clipboard.writeText(text);
}
