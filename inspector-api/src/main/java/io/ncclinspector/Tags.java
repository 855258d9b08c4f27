package io.ncclinspector;

/**
 * The step and phase tags of the thread that enqueued an operation ({@link NcclInspector#step},
 * {@link NcclInspector#phase}), captured when NCCL called the plugin on that thread.
 *
 * @param step the step tag, negative (-1) if none
 * @param phase the phase tag, null if none
 */
public record Tags(long step, String phase) {
  /** No tags. */
  public static final Tags NONE = new Tags(-1, null);

  /** Whether a step tag was set. */
  public boolean hasStep() {
    return step >= 0;
  }
}
