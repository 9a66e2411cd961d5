/**
 * @module A screen line as segments of text with a style each: what the frame is made of, and what
 * `view.tsx` paints.
 */

type Color = 'cyan' | 'gray' | 'red' | 'green' | 'yellow' | 'magenta' | 'blue'

export interface Seg {
  text: string
  bold?: boolean
  dim?: boolean
  inverse?: boolean
  color?: Color
}

export type Line = Seg[]

export const seg = (text: string, style: Omit<Seg, 'text'> = {}): Seg => ({text, ...style})
export const plain = (text: string): Line => [seg(text)]

/** The text of a line, without styles (tests, measuring). */
export const lineText = (l: Line): string => l.map((s) => s.text).join('')
