// Undo and redo of the explorer's edits. An edit is sent as one knowledge/update; undoing it sends
// the inverse patches as a new update (justified "undo: …"), so the graph's log keeps both and other
// viewers see the change like any other. Pure: the page sends the patches.

import type { KGPatch, KGStatement } from './kg';

/** A statement's identity in the store: subject, predicate, object (resource or literal) and graph. */
export function statementKey(s: KGStatement): string {
  const o = s.object.id !== undefined && s.object.id !== '' ? ['id', s.object.id] : ['value', s.object.value, s.object.type ?? ''];
  return JSON.stringify([s.subject.id, s.predicate.id, o, s.graph ?? '']);
}

function samePlace(a: KGStatement, b: KGStatement): boolean {
  return a.subject.id === b.subject.id && a.predicate.id === b.predicate.id && (a.graph ?? '') === (b.graph ?? '');
}

/**
 * The patches that undo `patches`, given `prior`: the statements, as they were before, that the
 * patches touch (for a remove, the removed statement; for a replace, every statement of its
 * subject and predicate; for an add of a statement that already existed, that statement with its
 * old certainty and provenance). Applied in reverse order, they put the graph back as it was.
 */
export function inversePatches(patches: KGPatch[], prior: KGStatement[]): KGPatch[] {
  const priorByKey = new Map(prior.map((s) => [statementKey(s), s]));
  const out: KGPatch[] = [];
  for (const p of [...patches].reverse()) {
    const st = p.statement;
    const before = priorByKey.get(statementKey(st));
    switch (p.op) {
      case 'add':
        // A new statement goes away; one that was there gets its old metadata back.
        out.push(before ? { op: 'add', statement: before } : { op: 'remove', statement: st });
        break;
      case 'remove':
        out.push({ op: 'add', statement: before ?? st });
        break;
      case 'replace': {
        const olds = prior.filter((s) => samePlace(s, st));
        if (olds.length === 0) {
          out.push({ op: 'remove', statement: st });
        } else {
          // replace keeps only the first old value; the others come back as adds.
          out.push({ op: 'replace', statement: olds[0] });
          for (const s of olds.slice(1)) out.push({ op: 'add', statement: s });
        }
        break;
      }
    }
  }
  return out;
}

/** One edit as the person made it: what was sent, how to take it back, and why. */
export interface Edit {
  patches: KGPatch[];
  inverse: KGPatch[];
  justification: string;
  /** A few words for the Undo/Redo buttons' titles ("add edge a → b"). */
  label: string;
  /**
   * Where the nodes it touched were drawn when it was made (graph coordinates): an undo or a redo that
   * brings one of them back draws it there again.
   */
  positions?: Record<string, { x: number; y: number }>;
}

/** The justification of an undo or a redo, naming the edit's own. */
export function undoJustification(e: Edit): string {
  return `undo: ${e.justification}`;
}
export function redoJustification(e: Edit): string {
  return `redo: ${e.justification}`;
}

/** The undo and redo stacks: a new edit clears what could be redone. */
export class UndoStack {
  private done: Edit[] = [];
  private undone: Edit[] = [];
  constructor(private readonly limit = 100) {}

  push(e: Edit): void {
    this.done.push(e);
    if (this.done.length > this.limit) this.done.shift();
    this.undone = [];
  }
  get canUndo(): boolean {
    return this.done.length > 0;
  }
  get canRedo(): boolean {
    return this.undone.length > 0;
  }
  peekUndo(): Edit | undefined {
    return this.done[this.done.length - 1];
  }
  peekRedo(): Edit | undefined {
    return this.undone[this.undone.length - 1];
  }
  /** Call once the undo's update was accepted: the edit moves to the redo stack. */
  markUndone(e: Edit): void {
    if (this.done[this.done.length - 1] === e) this.done.pop();
    this.undone.push(e);
  }
  /** Call once the redo's update was accepted: the edit moves back to the undo stack. */
  markRedone(e: Edit): void {
    if (this.undone[this.undone.length - 1] === e) this.undone.pop();
    this.done.push(e);
  }
  clear(): void {
    this.done = [];
    this.undone = [];
  }
}
