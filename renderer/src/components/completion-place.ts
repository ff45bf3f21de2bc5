import type { EditorView, Rect } from '@codemirror/view';

/** CodeMirror's widest detail box, and its gap from the editor's edge when it sits under the list. */
const INFO_WIDTH = 400;
const INFO_MARGIN = 30;

/**
 * Where a completion's detail box goes: beside the list where it fits, as CodeMirror does. Where it does not (a narrow
 * window), below the whole list, or above it when there is no room below, never over the other options, which
 * CodeMirror's own narrow placement covers from the selected one down.
 */
export function completionInfoPlace(_view: EditorView, list: Rect, option: Rect, info: Rect, space: Rect): { style: string; class: string } {
  const width = info.right - info.left;
  const height = info.bottom - info.top;
  const spaceRight = space.right - list.right;
  const spaceLeft = list.left - space.left;
  if (width <= Math.max(spaceRight, spaceLeft)) {
    const left = spaceRight < width;
    const top = Math.max(space.top, Math.min(option.top, space.bottom - height)) - list.top;
    return { style: `top: ${top}px; max-width: ${Math.min(INFO_WIDTH, left ? spaceLeft : spaceRight)}px`, class: `cm-completionInfo-${left ? 'left' : 'right'}` };
  }
  const spaceBelow = space.bottom - list.bottom;
  const below = spaceBelow >= height || spaceBelow > list.top - space.top;
  const maxWidth = Math.min(INFO_WIDTH, space.right - list.left - INFO_MARGIN);
  return { style: `${below ? 'top' : 'bottom'}: ${list.bottom - list.top}px; max-width: ${maxWidth}px`, class: 'cm-completionInfo-right-narrow' };
}
