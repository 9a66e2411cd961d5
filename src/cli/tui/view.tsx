/**
 * @module Paints a frame (`frame.ts`) with Ink: one line of text per screen line, styles per segment.
 * Without colour (NO_COLOR) bold, italics, underlines and inverse stay, colours and dimming go.
 */
import {Box, Text} from 'ink'
import type {ReactElement} from 'react'
import type {Line} from './styled.js'

export function Screen({lines, columns, color}: {lines: Line[]; columns: number; color: boolean}): ReactElement {
  return (
    <Box flexDirection="column" width={columns}>
      {lines.map((line, i) => (
        <Text key={i} wrap="truncate-end">
          {line.every((s) => s.text === '')
            ? ' '
            : line.map((s, j) => (
                <Text
                  key={j}
                  bold={s.bold}
                  italic={s.italic}
                  underline={s.underline}
                  strikethrough={s.strikethrough}
                  inverse={s.inverse}
                  dimColor={color && s.dim}
                  color={color ? s.color : undefined}
                >
                  {s.text}
                </Text>
              ))}
        </Text>
      ))}
    </Box>
  )
}
