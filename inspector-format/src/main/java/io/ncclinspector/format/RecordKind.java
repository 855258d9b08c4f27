package io.ncclinspector.format;

/** The two kinds of record line: a collective ({@code coll_perf}) or a point-to-point operation ({@code p2p_perf}). */
public enum RecordKind {
  COLL("coll"),
  P2P("p2p");

  private final String prefix;

  RecordKind(String prefix) {
    this.prefix = prefix;
  }

  /** The prefix of the kind's perf fields: {@code coll}, {@code p2p}. */
  public String prefix() {
    return prefix;
  }

  /** The name of the kind's perf object: {@code coll_perf}, {@code p2p_perf}. */
  public String perfObject() {
    return prefix + "_perf";
  }
}
