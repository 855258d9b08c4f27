package io.ncclinspector.report.ingest;

import io.ncclinspector.format.FieldType;
import io.ncclinspector.format.HeaderField;
import io.ncclinspector.format.MetadataField;
import io.ncclinspector.format.RecordFormat;
import io.ncclinspector.format.RecordKind;
import java.util.List;
import java.util.StringJoiner;
import java.util.function.Function;

/**
 * The typed view of one log line that both engines' JSON readers are given: four objects
 * ({@code header}, {@code metadata}, {@code coll_perf}, {@code p2p_perf}) and their fields. One
 * definition, spelled for DuckDB's {@code read_json(columns = ...)} and for Spark's {@code
 * from_json} schema. Message sizes are read as 128-bit integers (DuckDB) or 38-digit decimals
 * (Spark) because the reference writes values near 2^64; the trace objects are kept as JSON text.
 * The objects and fields are those of the shared record format ({@link RecordFormat}), which the
 * core's writer writes by: a field added there is read here.
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
    BOOLEAN("BOOLEAN", "BOOLEAN"),
    TEXT_LIST("VARCHAR[]", "ARRAY<STRING>"),
    /** Any JSON value, kept as its text. */
    JSON("JSON", "STRING");

    private final String duckDb;
    private final String spark;

    Type(String duckDb, String spark) {
      this.duckDb = duckDb;
      this.spark = spark;
    }

    /** How the report reads a field of this JSON type. */
    public static Type of(FieldType t) {
      return switch (t) {
        case STRING -> TEXT;
        case INT -> INT;
        case LONG -> BIGINT;
        case UNSIGNED_LONG -> HUGE;
        case DOUBLE -> DOUBLE;
        case BOOLEAN -> BOOLEAN;
        case STRING_LIST -> TEXT_LIST;
        case OBJECT, OBJECT_LIST -> JSON;
      };
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

  private static Part part(String object, RecordKind kind) {
    return new Part(object, RecordFormat.fieldsOf(object).stream()
        .map(f -> new Field(f.jsonName(kind), Type.of(f.type()))).toList());
  }

  /** The line's objects and fields. */
  public static final List<Part> PARTS = List.of(
      part(HeaderField.OBJECT, RecordKind.COLL),
      part(MetadataField.OBJECT, RecordKind.COLL),
      part(RecordKind.COLL.perfObject(), RecordKind.COLL),
      part(RecordKind.P2P.perfObject(), RecordKind.P2P));

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
