/**
 * A program on the module path, as an application in a module sees the inspector: its API, the
 * test kit that plays a trace without NCCL, the Prometheus and JFR exporters, and nothing internal.
 */
module io.ncclinspector.examples.modular {
  requires io.ncclinspector.testkit; /* and, through it, io.ncclinspector */
  requires io.ncclinspector.prometheus;
  requires io.ncclinspector.jfr;
  requires jdk.jfr;
}
