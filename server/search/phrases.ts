/**
 * @module Counting a query's phrases in a stream of tokens in linear time: an Aho–Corasick automaton over
 * the phrases' stems, so each token costs one table step plus one count per phrase ending at it, however
 * long or repetitive the phrases and the text (docs/search.md, "Bounded work").
 */

/** A phrase to count: its stems in order, and the term whose count it adds to. */
export interface Phrase {
  stems: string[]
  term: number
}

export class PhraseCounter {
  /** Symbol of each stem that occurs in a phrase (1…); every other token is symbol 0, which no phrase holds. */
  private readonly symbols = new Map<string, number>()
  /** next[state * width + symbol]: the automaton's complete transition table. */
  private readonly next: Int32Array
  private readonly width: number
  /** The terms of the phrases ending at each state (its own and those of its failure chain). */
  private readonly outputs: number[][]
  private state = 0

  constructor(phrases: Phrase[]) {
    for (const p of phrases) for (const s of p.stems) if (!this.symbols.has(s)) this.symbols.set(s, this.symbols.size + 1)
    this.width = this.symbols.size + 1
    // The trie of the phrases: children by symbol, and the terms ending at each node.
    const children: Array<Map<number, number>> = [new Map()]
    const ends: number[][] = [[]]
    for (const p of phrases) {
      let node = 0
      for (const s of p.stems) {
        const symbol = this.symbols.get(s)!
        let child = children[node]!.get(symbol)
        if (child === undefined) {
          child = children.length
          children.push(new Map())
          ends.push([])
          children[node]!.set(symbol, child)
        }
        node = child
      }
      ends[node]!.push(p.term)
    }
    // Breadth first: each node's transitions are its children, else its failure node's transitions.
    this.next = new Int32Array(children.length * this.width)
    this.outputs = ends.map(() => [])
    const fail = new Int32Array(children.length)
    const queue: number[] = []
    for (let symbol = 1; symbol < this.width; symbol++) {
      const child = children[0]!.get(symbol)
      if (child === undefined) continue
      this.next[symbol] = child
      queue.push(child)
    }
    this.outputs[0] = ends[0]!
    for (const child of queue) this.outputs[child] = ends[child]!
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!
      for (let symbol = 1; symbol < this.width; symbol++) {
        const child = children[node]!.get(symbol)
        const via = this.next[fail[node]! * this.width + symbol]!
        if (child === undefined) {
          this.next[node * this.width + symbol] = via
          continue
        }
        fail[child] = via
        this.outputs[child] = [...ends[child]!, ...this.outputs[via]!]
        this.next[node * this.width + symbol] = child
        queue.push(child)
      }
    }
  }

  /** Starts a new text: no phrase continues across texts. */
  reset(): void {
    this.state = 0
  }

  /** Reads one token (its stem, or null for a token no phrase holds); returns the terms of the phrases ending at it. */
  step(stem: string | null): readonly number[] {
    const symbol = stem === null ? 0 : (this.symbols.get(stem) ?? 0)
    this.state = symbol === 0 ? 0 : this.next[this.state * this.width + symbol]!
    return this.outputs[this.state]!
  }
}
