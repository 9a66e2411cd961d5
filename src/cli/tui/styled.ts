/**
 * @module A screen line as segments of text with a style each: what the frame is made of, and what
 * `view.tsx` paints.
 */

import type {ColorName} from '../render/style.js'

/** A span of rendered Markdown (src/cli/render/style.ts) is a segment as it is. */
export interface Seg {
  text: string
  bold?: boolean
  dim?: boolean
  inverse?: boolean
  italic?: boolean
  underline?: boolean
  strikethrough?: boolean
  color?: ColorName
}

export type Line = Seg[]

export const seg = (text: string, style: Omit<Seg, 'text'> = {}): Seg => ({text, ...style})
export const plain = (text: string): Line => [seg(text)]

/** The text of a line, without styles (tests, measuring). */
export const lineText = (l: Line): string => l.map((s) => s.text).join('')
