package io.ncclinspector.cli;

import picocli.CommandLine.IVersionProvider;

/** The version of the jar the command runs from (its manifest), "dev" when run from classes. */
final class Version implements IVersionProvider {
  @Override
  public String[] getVersion() {
    String v = Version.class.getPackage().getImplementationVersion();
    return new String[] {"nccl-inspector " + (v != null ? v : "dev")};
  }
}
