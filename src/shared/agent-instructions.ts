/**
 * @module What a coding agent is told about kb, written once: `kb agent install` puts it in the project's
 * instructions file (CLAUDE.md, AGENTS.md, .cursor/rules/kb.mdc, .github/copilot-instructions.md; docs/agents.md),
 * and it is the text the MCP server can send as its `instructions`. Plain Markdown, no imports.
 */

/** The title line of the section (a Markdown heading in an instructions file). */
export const AGENT_INSTRUCTIONS_TITLE = 'kb: the team knowledge base'

/** When to search, record, verify and flag, in a few lines an agent reads before every task. */
export const AGENT_INSTRUCTIONS = `This project keeps what its people and agents learned in kb (the \`kb\` MCP server): problems, their root causes, the fixes, and the reasoning that led there.

- **Search first.** Before you debug an error or change code you do not know, call \`search_knowledge\` with the error message or the component's name, and read a promising hit with \`get_knowledge\`.
- **Record what you learned.** After you found a root cause or a fix that kb did not have, call \`add_knowledge\`: the problem as the title, cause and fix in the body, your reasoning as \`thought_chain\`. If an entry already covers it, use \`comment_on_knowledge\` instead of adding a copy.
- **Verify or flag.** When an entry's fix worked for you, call \`verify_knowledge\`; when it did not, or the entry is out of date, call \`flag_knowledge\` and say why. Treat an entry marked stale as a lead to check, not a fact.
- Keep secrets out: if a tool reports secrets or personal data, call it again with \`redact: true\`.
`
