package io.ncclinspector.internal;

/**
 * A sink that owns something besides its thread (files, a thread of its own) and can let go of it
 * without waiting once {@link AsyncSink} has abandoned its thread: {@link #abandoned} is called on
 * that thread when it is free again, instead of the flush and close that are skipped then (they
 * could block on whatever held it).
 */
interface Abandonable {
  /** Releases what the sink owns, or arranges for it to be released; must not block. */
  void abandoned();
}
