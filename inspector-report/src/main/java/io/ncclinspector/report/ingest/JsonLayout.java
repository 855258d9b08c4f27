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
 *
 * <p>A field whose JSON value is not of the field's type (text for a number, a number or a
 * boolean for text, a fraction for an integer, NaN) makes the line unusable, in both engines and
 * in the line check alike: DuckDB's typed reader would convert it ({@code "0"} to 0, {@code true}
 * to 1), so DuckDB reads every field as its JSON text and the import's SQL converts it ({@link
 * Reading#JSON_TEXT}); Spark parses only the lines the line check accepted ({@link
 * Reading#TYPED}).
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

  /**
   * How an engine's reader hands a field's value to the import's SQL, and the SQL that takes it:
   * the value as the field's type ({@link #value}), or null when the JSON value is of another
   * type, and whether that happened ({@link #wrongType}).
   */
  public enum Reading {
    /**
     * As JSON text (DuckDB's {@code JSON} type, the value as the reader re-wrote it: text quoted,
     * numbers as written, integers without a fraction or exponent), converted by the SQL only
     * where the JSON type is the field's.
     */
    JSON_TEXT,
    /**
     * Typed by the engine's JSON parser, from lines that the line check ({@code LineCheck})
     * accepted: it checks each field's JSON type by the same rules.
     */
    TYPED;

    /** The value of a field expression as its report type; null if its JSON type is another. */
    public String value(String expr, Type type) {
      if (this == TYPED) {
        return type == Type.JSON ? "CAST(" + expr + " AS STRING)" : expr;
      }
      String text = "CAST(" + expr + " AS VARCHAR)";
      return switch (type) {
        case TEXT -> "CASE WHEN NOT starts_with(" + text + ", '\"') THEN NULL"
            + " WHEN contains(" + text + ", '\\') THEN json_extract_string(" + expr + ", '$')"
            + " ELSE " + text + "[2:-2] END";
        case INT, BIGINT, HUGE -> "CASE WHEN strpos(" + text + ", '.') = 0 AND strpos(" + text
            + ", 'e') = 0 AND strpos(" + text + ", 'E') = 0 THEN TRY_CAST(" + text + " AS "
            + type.duckDb() + ") END";
        case DOUBLE -> "CASE WHEN isfinite(TRY_CAST(" + text + " AS DOUBLE)) THEN TRY_CAST(" + text
            + " AS DOUBLE) END";
        case BOOLEAN -> "CASE " + text + " WHEN 'true' THEN true WHEN 'false' THEN false END";
        case TEXT_LIST -> "CASE WHEN starts_with(" + text + ", '[') AND len(list_filter(json_type("
            + expr + ", '$[*]'), t -> t <> 'VARCHAR')) = 0 THEN CAST(" + expr + " AS VARCHAR[]) END";
        case JSON -> "CASE WHEN starts_with(" + text + ", '{') THEN " + text + " END";
      };
    }

    /** Whether a field expression holds a value of another JSON type than the field's. */
    public String wrongType(String expr, Type type) {
      return this == TYPED ? "false" : "(" + expr + " IS NOT NULL AND " + value(expr, type)
          + " IS NULL)";
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

  /**
   * DuckDB's {@code read_json} {@code columns} argument: every field as JSON text ({@link
   * Reading#JSON_TEXT}).
   */
  public static String duckDbColumns() {
    StringJoiner parts = new StringJoiner(", ", "{", "}");
    for (Part p : PARTS) {
      parts.add(p.name() + ": '" + struct(p, t -> "JSON", "STRUCT(", " ", ")") + "'");
    }
    return parts.toString();
  }

  /**
   * SQL that is true when some field of the line holds a value of another JSON type than its own
   * (such a line is not usable), as the reader hands the fields over.
   */
  public static String wrongTypeSql(Reading reading) {
    if (reading == Reading.TYPED) {
      return "false";
    }
    StringJoiner any = new StringJoiner("\n    OR ", "(", ")");
    for (Part p : PARTS) {
      for (Field f : p.fields()) {
        any.add(reading.wrongType(p.name() + "." + f.name(), f.type()));
      }
    }
    return any.toString();
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
