package io.ncclinspector.report.ingest;

import java.util.List;
import java.util.StringJoiner;
import java.util.function.Function;

/**
 * The typed view of one log line that both engines' JSON readers are given: four objects
 * ({@code header}, {@code metadata}, {@code coll_perf}, {@code p2p_perf}) and their fields. One
 * definition, spelled for DuckDB's {@code read_json(columns = ...)} and for Spark's {@code
 * from_json} schema. Message sizes are read as 128-bit integers (DuckDB) or 38-digit decimals
 * (Spark) because the reference writes values near 2^64; the trace objects are kept as JSON text.
 */
public final class JsonLayout {
  private JsonLayout() {}

  /** A field's type, as the report reads it. */
  public enum Type {
    TEXT("VARCHAR", "STRING"),
    INT("INTEGER", "INT"),
    BIGINT("BIGINT", "BIGINT"),
    /** An integer of up to 38 digits. */
    HUGE("HUGEINT", "DECIMAL(38,0)"),
    DOUBLE("DOUBLE", "DOUBLE"),
    TEXT_LIST("VARCHAR[]", "ARRAY<STRING>"),
    /** Any JSON value, kept as its text. */
    JSON("JSON", "STRING");

    private final String duckDb;
    private final String spark;

    Type(String duckDb, String spark) {
      this.duckDb = duckDb;
      this.spark = spark;
    }

    public String duckDb() {
      return duckDb;
    }

    public String spark() {
      return spark;
    }
  }

  /** One field of an object. */
  public record Field(String name, Type type) {}

  /** One top-level object of the line. */
  public record Part(String name, List<Field> fields) {}

  private static Field f(String name, Type type) {
    return new Field(name, type);
  }

  private static List<Field> perf(String p, boolean coll) {
    List<Field> common = List.of(f(p, Type.TEXT), f(p + "_sn", Type.BIGINT));
    java.util.ArrayList<Field> out = new java.util.ArrayList<>(common);
    if (!coll) {
      out.add(f("p2p_peer", Type.INT));
    }
    out.addAll(List.of(f(p + "_msg_size_bytes", Type.HUGE), f(p + "_exec_time_us", Type.BIGINT),
        f(p + "_timing_source", Type.TEXT), f(p + "_algobw_gbs", Type.DOUBLE),
        f(p + "_busbw_gbs", Type.DOUBLE), f(p + "_exec_time_ns", Type.BIGINT)));
    if (coll) {
      out.addAll(List.of(f("coll_algo", Type.TEXT), f("coll_proto", Type.TEXT)));
    }
    out.addAll(List.of(f(p + "_datatype", Type.TEXT), f(p + "_count", Type.BIGINT)));
    if (coll) {
      out.add(f("coll_root", Type.INT));
    }
    out.addAll(List.of(f(p + "_nchannels", Type.INT), f(p + "_channels_seen", Type.INT)));
    if (coll) {
      out.add(f("coll_nwarps", Type.INT));
    }
    out.addAll(List.of(f(p + "_gpu_start_ns", Type.BIGINT), f(p + "_gpu_span_ns", Type.BIGINT),
        f(p + "_gpu_skew_ns", Type.BIGINT), f(p + "_step", Type.BIGINT),
        f(p + "_phase", Type.TEXT), f(p + "_flags", Type.TEXT_LIST),
        f(p + "_quarantine_reason", Type.TEXT), f("event_trace_sn", Type.JSON),
        f("event_trace_ts", Type.JSON)));
    return List.copyOf(out);
  }

  /** The line's objects and fields. */
  public static final List<Part> PARTS = List.of(
      new Part("header", List.of(f("id", Type.TEXT), f("comm_name", Type.TEXT),
          f("rank", Type.INT), f("n_ranks", Type.INT), f("nnodes", Type.INT))),
      new Part("metadata", List.of(f("inspector_output_format_version", Type.TEXT),
          f("git_rev", Type.TEXT), f("rec_mechanism", Type.TEXT),
          f("dump_timestamp_us", Type.BIGINT), f("hostname", Type.TEXT), f("pid", Type.BIGINT),
          f("profiler_interface_version", Type.INT))),
      new Part("coll_perf", perf("coll", true)),
      new Part("p2p_perf", perf("p2p", false)));

  /** DuckDB's {@code read_json} {@code columns} argument. */
  public static String duckDbColumns() {
    StringJoiner parts = new StringJoiner(", ", "{", "}");
    for (Part p : PARTS) {
      parts.add(p.name() + ": '" + struct(p, Type::duckDb, "STRUCT(", " ", ")") + "'");
    }
    return parts.toString();
  }

  /** Spark's {@code from_json} schema, as DDL. */
  public static String sparkSchema() {
    StringJoiner parts = new StringJoiner(", ");
    for (Part p : PARTS) {
      parts.add(p.name() + " " + struct(p, Type::spark, "STRUCT<", ": ", ">"));
    }
    return parts.toString();
  }

  private static String struct(Part p, Function<Type, String> spell, String open, String sep,
      String close) {
    StringJoiner fields = new StringJoiner(", ", open, close);
    for (Field f : p.fields()) {
      fields.add(f.name() + sep + spell.apply(f.type()));
    }
    return fields.toString();
  }
}
