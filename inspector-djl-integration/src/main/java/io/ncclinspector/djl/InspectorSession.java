package io.ncclinspector.djl;

import io.ncclinspector.CommunicatorSelector;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.ListenerRegistration;
import io.ncclinspector.NcclInspector;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the listener holds during one training: the inspector (shared, or enabled and owned), its
 * listener registration and the training thread's tags. Closing it undoes exactly what opening did.
 */
final class InspectorSession implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InspectorSession.class);

  private final NcclInspector inspector;
  private final boolean owned;
  private final ListenerRegistration registration;
  private final TrainingTags tags;
  private boolean closed;

  private InspectorSession(NcclInspector inspector, boolean owned, ListenerRegistration registration) {
    this.inspector = inspector;
    this.owned = owned;
    this.registration = registration;
    this.tags = new TrainingTags(inspector);
  }

  /**
   * Shares the process's active inspector, or enables one from the configuration. If that fails
   * (no native library, a conflicting profiler plugin, a malformed environment variable), training
   * goes on with an inactive inspector and a warning: observability must not stop a training.
   */
  static InspectorSession open(Supplier<InspectorConfig> config, CommunicatorSelector selector,
      InspectorListener listener) {
    NcclInspector inspector;
    boolean owned;
    Optional<NcclInspector> current = NcclInspector.current();
    if (current.isPresent()) {
      inspector = current.get();
      owned = false;
    } else {
      try {
        inspector = NcclInspector.enable(config.get());
        owned = true;
      } catch (IllegalStateException e) {
        /* Another thread may have enabled one in between: share it if so. */
        Optional<NcclInspector> raced = NcclInspector.current();
        if (raced.isEmpty()) {
          return unavailable(e);
        }
        inspector = raced.get();
        owned = false;
      } catch (RuntimeException | UnsatisfiedLinkError | NoClassDefFoundError e) {
        return unavailable(e);
      }
    }
    return new InspectorSession(inspector, owned, inspector.addListener(selector, listener));
  }

  private static InspectorSession unavailable(Throwable cause) {
    log.warn("NCCL Inspector could not be started; training goes on without NCCL communication figures", cause);
    NcclInspector off = NcclInspector.enable(InspectorConfig.builder().enabled(false).build());
    return new InspectorSession(off, true, off.addListener(new InspectorListener() {}));
  }

  NcclInspector inspector() {
    return inspector;
  }

  boolean owned() {
    return owned;
  }

  TrainingTags tags() {
    return tags;
  }

  long droppedEvents() {
    return registration.dropped();
  }

  /**
   * Clears the calling thread's tags, then: an owned inspector is closed first, which delivers every
   * completed record to the listener; a shared one stays open and only the registration goes
   * (events still queued for it are dropped). Closing twice does nothing.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      tags.clear();
    } finally {
      if (owned) {
        inspector.close();
      }
      registration.close();
    }
  }
}
