/**
 * The binding of the native core NCCL loads: the JavaCPP mapping of its functions and its layout
 * tables. Not an API: only the core ({@code io.ncclinspector}) and the test kit read it.
 */
module io.ncclinspector.nativecore {
  requires org.bytedeco.javacpp;

  exports io.ncclinspector.nativecore to io.ncclinspector, io.ncclinspector.testkit;
}
