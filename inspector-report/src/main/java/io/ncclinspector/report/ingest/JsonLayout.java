package io.ncclinspector.report.ingest;

import io.ncclinspector.format.FieldType;
import io.ncclinspector.format.HeaderField;
import io.ncclinspector.format.MetadataField;
import io.ncclinspector.format.PerfField;
import io.ncclinspector.format.RecordField;
import io.ncclinspector.format.RecordFormat;
import io.ncclinspector.format.RecordKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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

    /** Whether the type holds JSON integers (a fraction or an exponent is another JSON type). */
    public boolean integer() {
      return this == INT || this == BIGINT || this == HUGE;
    }

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

  /** How an engine's reader hands the fields of a line to the import's SQL ({@link #fields}). */
  public enum Reading {
    /**
     * As JSON text (DuckDB's {@code JSON} type: the value as the reader re-wrote it, text quoted,
     * integers without a fraction or exponent), converted by the SQL only where the JSON type is
     * the field's.
     */
    JSON_TEXT,
    /**
     * Typed by the engine's JSON parser, from lines that the line check ({@code LineCheck})
     * accepted: it checks each field's JSON type by the same rules.
     */
    TYPED
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
   * Reading#JSON_TEXT}), or typed ({@link Reading#TYPED}: only for lines whose every field is
   * known to hold a value of its own JSON type, which DuckDB's typed reader then reads as the
   * JSON text reading would).
   */
  public static String duckDbColumns(Reading reading) {
    return duckDbColumns(reading, null);
  }

  /**
   * As {@link #duckDbColumns(Reading)}; with {@link Reading#TYPED}, only the fields in {@code read}
   * are declared (null: all), so that the reader does not hand over fields no column reads. The
   * checked reading declares every field whatever {@code read} is: it checks each field's JSON
   * type.
   */
  public static String duckDbColumns(Reading reading, Set<RecordField> read) {
    return duckDbColumns(reading, read, null);
  }

  /**
   * As {@link #duckDbColumns(Reading, Set)}; with {@link Reading#TYPED}, of those fields only the
   * ones in {@code present} ({@code object.field}, null: all): the fields the lines hold, as the
   * screen found them ({@code LineScreen.fieldsSeen}). Every field left out costs the reader
   * nothing; {@link #fields(Reading, String, String, Set, Set)} gives it as a typed null. DuckDB
   * takes a field it was not told of for absent, so {@code present} must hold every field of
   * every line read.
   */
  public static String duckDbColumns(Reading reading, Set<RecordField> read, Set<String> present) {
    Function<Type, String> spell = reading == Reading.TYPED ? Type::duckDb : t -> "JSON";
    Set<String> keys = reading == Reading.TYPED ? keys(read) : null;
    StringJoiner parts = new StringJoiner(", ", "{", "}");
    for (Part p : PARTS) {
      Part declared = reading == Reading.TYPED ? declared(declared(p, keys), present) : p;
      parts.add(p.name() + ": '" + struct(declared, spell, "STRUCT(", " ", ")") + "'");
    }
    return parts.toString();
  }

  /** The object.field names of the fields in {@code read}, in each kind that has them; null: all. */
  private static Set<String> keys(Set<RecordField> read) {
    if (read == null) {
      return null;
    }
    Set<String> keys = new HashSet<>();
    for (RecordField f : read) {
      for (RecordKind k : RecordKind.values()) {
        if (f.appliesTo(k)) {
          keys.add(f.objectName(k) + "." + f.jsonName(k));
        }
      }
    }
    return keys;
  }

  /**
   * The part with the fields in {@code keys} ({@code object.field}) only (null: all of them): the
   * fields read, or of those the fields the lines hold. An object keeps at least its first field,
   * so that its presence is still read.
   */
  private static Part declared(Part p, Set<String> keys) {
    if (keys == null) {
      return p;
    }
    List<Field> kept = p.fields().stream().filter(f -> keys.contains(p.name() + "." + f.name()))
        .toList();
    return new Part(p.name(), kept.isEmpty() ? p.fields().subList(0, 1) : kept);
  }

  /** With {@link Reading#JSON_TEXT}: the line's integer fields' texts, joined. */
  private static final String INTEGER_TEXTS = "n_integer_texts";

  /** The column of {@link #fields} that holds a field of an object. */
  public static String column(String object, String field) {
    return "l_" + object + "__" + field;
  }

  /** The column of {@link #fields} that says whether an object is on the line. */
  public static String presence(String object) {
    return "l_" + object;
  }

  /**
   * The line's fields as a relation over an engine's reader ({@code source}: the four objects and
   * the file's name): {@code l_file}; {@link #presence} of each object; {@link #column} of each
   * field (with {@link Reading#JSON_TEXT}, one {@link #value} column for a perf field both kinds
   * have), its value as the field's type, null when absent (trace objects as JSON text); {@code
   * l_wrong_type}, whether some field holds a value of another JSON type than its own (the line
   * is then not usable, and its values are not used: a field of another JSON type may be null
   * or converted).
   *
   * <p>With {@link Reading#JSON_TEXT} the conversion takes three steps, so that each field's text
   * is converted once and the type check reads the result: the text, the value, the check. An
   * integer field's text is cast as it is, and the check that no integer is written with a
   * fraction or an exponent (which the cast would round) looks once at all of the line's
   * integer texts together: one search per line instead of three per field.
   */
  public static String fields(Reading reading, String fileColumn, String source) {
    return fields(reading, fileColumn, source, null);
  }

  /**
   * As {@link #fields(Reading, String, String)}; with {@link Reading#TYPED}, the columns of the
   * fields in {@code read} only (null: all), from a reader that declares them ({@link
   * #duckDbColumns(Reading, Set)}). With {@link Reading#JSON_TEXT} every field is checked.
   */
  public static String fields(Reading reading, String fileColumn, String source,
      Set<RecordField> read) {
    return fields(reading, fileColumn, source, read, null);
  }

  /**
   * As {@link #fields(Reading, String, String, Set)}; with {@link Reading#TYPED}, from a reader
   * that declares of those fields only the ones in {@code present} ({@link
   * #duckDbColumns(Reading, Set, Set)}): the others' columns are nulls of their types.
   */
  public static String fields(Reading reading, String fileColumn, String source,
      Set<RecordField> read, Set<String> present) {
    List<String> first = new ArrayList<>();
    first.add(fileColumn + " AS l_file");
    for (Part p : PARTS) {
      first.add(p.name() + " IS NOT NULL AS " + presence(p.name()));
    }
    if (reading == Reading.TYPED) {
      Set<String> keys = keys(read);
      for (Part part : PARTS) {
        Part p = declared(part, keys);
        List<Field> held = declared(p, present).fields();
        for (Field f : p.fields()) {
          String v = p.name() + "." + f.name();
          String text = f.type() == Type.JSON ? "STRING" : f.type().duckDb();
          String value = !held.contains(f) ? "CAST(NULL AS " + text + ")"
              : f.type() == Type.JSON ? "CAST(" + v + " AS STRING)" : v;
          first.add(value + " AS " + column(p.name(), f.name()));
        }
      }
      first.add("false AS l_wrong_type");
      return "SELECT " + String.join(", ", first) + " FROM (" + source + ") l_source";
    }
    List<String> carried = new ArrayList<>();
    carried.add("l_file");
    PARTS.forEach(p -> carried.add(presence(p.name())));
    List<String> second = new ArrayList<>(carried);
    List<String> third = new ArrayList<>(carried);
    StringJoiner wrong = new StringJoiner(" OR ", "(", ") AS l_wrong_type");
    StringJoiner integers = new StringJoiner(", ", "concat_ws(',', ", ") AS " + INTEGER_TEXTS);
    for (TextField f : textFields()) {
      String text = "t" + f.column().substring(1);
      String converted = "c" + f.column().substring(1);
      first.add(f.text() + " AS " + text);
      second.add(text);
      second.add(convert(text, f.type()) + " AS " + converted);
      String value = f.type() == Type.DOUBLE
          ? "CASE WHEN isfinite(" + converted + ") THEN " + converted + " END" : converted;
      third.add(value + " AS " + f.column());
      wrong.add(text + " IS NOT NULL AND " + (f.type() == Type.DOUBLE
          ? "NOT coalesce(isfinite(" + converted + "), false)" : converted + " IS NULL"));
      if (f.type().integer()) {
        integers.add(text);
      }
    }
    second.add(integers.toString());
    for (String c : new String[] {".", "e", "E"}) {
      wrong.add("contains(" + INTEGER_TEXTS + ", '" + c + "')");
    }
    third.add(wrong.toString());
    return "SELECT " + String.join(", ", third) + " FROM (SELECT " + String.join(", ", second)
        + " FROM (SELECT " + String.join(", ", first) + " FROM (" + source + ") l_source) l_text)"
        + " l_converted";
  }

  /**
   * With {@link Reading#JSON_TEXT}, a field the conversion works on.
   *
   * @param column its column in {@link #fields}
   * @param text its JSON text, SQL over the reader's objects
   * @param type its type
   */
  private record TextField(String column, String text, Type type) {}

  /**
   * The fields converted with {@link Reading#JSON_TEXT}: each header and metadata field, and
   * each perf field once, a field that both kinds of record have under its {@link #value}
   * column, its text taken from whichever perf object has it (a usable line has exactly one),
   * so that it is converted and checked once rather than once per kind.
   */
  private static List<TextField> textFields() {
    List<TextField> out = new ArrayList<>();
    for (String object : List.of(HeaderField.OBJECT, MetadataField.OBJECT)) {
      for (RecordField f : RecordFormat.fieldsOf(object)) {
        String name = f.jsonName(RecordKind.COLL);
        out.add(new TextField(column(object, name), text(object, name), Type.of(f.type())));
      }
    }
    for (RecordKind k : RecordKind.values()) {
      for (PerfField f : PerfField.of(k)) {
        boolean both = f.appliesTo(RecordKind.COLL) && f.appliesTo(RecordKind.P2P);
        if (!both) {
          out.add(new TextField(column(k.perfObject(), f.jsonName(k)),
              text(k.perfObject(), f.jsonName(k)), Type.of(f.type())));
        } else if (k == RecordKind.COLL) {
          StringJoiner texts = new StringJoiner(", ", "coalesce(", ")");
          for (RecordKind each : RecordKind.values()) {
            texts.add(text(each.perfObject(), f.jsonName(each)));
          }
          out.add(new TextField(value(Reading.JSON_TEXT, f), texts.toString(),
              Type.of(f.type())));
        }
      }
    }
    return out;
  }

  private static String text(String object, String field) {
    return "CAST(" + object + "." + field + " AS VARCHAR)";
  }

  /**
   * The column or expression of {@link #fields} that holds field {@code f} of whichever kind of
   * record has it: a perf field both kinds have is the coalesce of the two objects' columns
   * with {@link Reading#TYPED}, and one column of its own with {@link Reading#JSON_TEXT}.
   */
  public static String value(Reading reading, RecordField f) {
    List<String> reads = new ArrayList<>();
    List<RecordKind> kinds = f instanceof PerfField ? List.of(RecordKind.values())
        : List.of(RecordKind.COLL);
    for (RecordKind k : kinds) {
      if (f.appliesTo(k)) {
        reads.add(column(f.objectName(k), f.jsonName(k)));
      }
    }
    if (reads.size() == 1) {
      return reads.get(0);
    }
    return reading == Reading.JSON_TEXT ? column("perf", f.jsonName(RecordKind.COLL))
        : "coalesce(" + String.join(", ", reads) + ")";
  }

  /**
   * DuckDB: a field's JSON text as the field's type where the JSON type is the field's, else null
   * (a DOUBLE is taken as any number here, the caller refuses NaN and infinities; an integer
   * type takes a number with a fraction or an exponent too, rounded, and the caller refuses the
   * line). A string without escapes loses its quotes by {@code substr}, which is cheaper than a
   * slice; one with escapes is decoded.
   */
  private static String convert(String t, Type type) {
    return switch (type) {
      case TEXT -> "CASE WHEN starts_with(" + t + ", '\"') THEN CASE WHEN contains(" + t
          + ", '\\') THEN json_extract_string(" + t + ", '$') ELSE substr(" + t + ", 2, length("
          + t + ") - 2) END END";
      case INT, BIGINT, HUGE -> "TRY_CAST(" + t + " AS " + type.duckDb() + ")";
      case DOUBLE -> "TRY_CAST(" + t + " AS DOUBLE)";
      case BOOLEAN -> "CASE " + t + " WHEN 'true' THEN true WHEN 'false' THEN false END";
      // The lambda in DuckDB's keyword syntax: DuckDB 2.0 refuses the arrow form (x -> ...).
      case TEXT_LIST -> "CASE WHEN starts_with(" + t + ", '[') AND len(list_filter(json_type(" + t
          + ", '$[*]'), lambda x: x <> 'VARCHAR')) = 0 THEN CAST(CAST(" + t + " AS JSON) AS VARCHAR[])"
          + " END";
      case JSON -> "CASE WHEN starts_with(" + t + ", '{') THEN " + t + " END";
    };
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
