/**
 * The test kit: recorded traces read ({@code TraceReader}) and played into an inspector through a
 * stand-in for NCCL ({@code TracePlayer}, {@code TraceReplayer}), traces and records built in code
 * ({@code io.ncclinspector.testkit}). The stand-in's binding ({@code io.ncclinspector.testkit.driver})
 * is not exported.
 */
module io.ncclinspector.testkit {
  requires transitive io.ncclinspector;
  requires io.ncclinspector.nativecore;
  requires io.ncclinspector.format;
  requires org.bytedeco.javacpp;
  requires com.fasterxml.jackson.core;
  requires org.slf4j;

  exports io.ncclinspector.replay;
  exports io.ncclinspector.testkit;
}
