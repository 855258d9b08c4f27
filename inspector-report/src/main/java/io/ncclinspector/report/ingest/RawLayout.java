package io.ncclinspector.report.ingest;

import io.ncclinspector.format.PerfField;
import io.ncclinspector.format.RecordField;
import io.ncclinspector.format.RecordKind;
import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.ingest.parquet.ColumnSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;

/**
 * The raw rows of a column set ({@link RecordSchema#raw}) as the report's own reading of the
 * lines writes them ({@link RawRowSink}): which line field goes to which column, the Parquet
 * columns, and the SQL that turns those files back into exactly the raw rows DuckDB's typed
 * reader gives ({@link JsonLayout.Reading#TYPED}).
 *
 * <p>The file holds {@code r_is_coll}, {@code r_is_p2p}, then one column per field of {@link
 * RecordSchema#rawColumns} (a perf field both kinds have: one column, from whichever perf object
 * the line has, as the typed reading's coalesce). Message sizes are 128-bit integers stored as
 * DECIMAL(38,0) and cast back; lists of strings and JSON objects are stored as their JSON text
 * and parsed back by DuckDB ({@code json()} re-writes an object as the typed reader does).
 */
public final class RawLayout {
  private final List<RecordSchema.Column> columns;
  private final List<JsonLayout.Type> types = new ArrayList<>();
  private final List<ColumnSpec> specs = new ArrayList<>();
  /** [part][field] of {@link JsonLayout#PARTS}: the file's column, or -1 when not read. */
  private final int[][] target;

  /** The first column of fields: after the two presence flags. */
  static final int FIRST_FIELD = 2;

  public RawLayout(RecordSchema.ColumnSet set) {
    columns = RecordSchema.rawColumns(set);
    target = new int[JsonLayout.PARTS.size()][];
    for (int i = 0; i < target.length; i++) {
      target[i] = new int[JsonLayout.PARTS.get(i).fields().size()];
      Arrays.fill(target[i], -1);
    }
    specs.add(new ColumnSpec("r_is_coll", ColumnSpec.Kind.BOOLEAN, true));
    specs.add(new ColumnSpec("r_is_p2p", ColumnSpec.Kind.BOOLEAN, true));
    for (RecordSchema.Column c : columns) {
      RecordField f = c.source();
      JsonLayout.Type type = JsonLayout.Type.of(f.type());
      int index = specs.size();
      types.add(type);
      specs.add(new ColumnSpec("r_" + c.name(), kind(type), false));
      List<RecordKind> kinds = f instanceof PerfField ? List.of(RecordKind.values())
          : List.of(RecordKind.COLL);
      for (RecordKind k : kinds) {
        if (f.appliesTo(k)) {
          place(f.objectName(k), f.jsonName(k), index);
        }
      }
    }
  }

  private void place(String object, String field, int index) {
    for (int p = 0; p < JsonLayout.PARTS.size(); p++) {
      JsonLayout.Part part = JsonLayout.PARTS.get(p);
      if (part.name().equals(object)) {
        for (int i = 0; i < part.fields().size(); i++) {
          if (part.fields().get(i).name().equals(field)) {
            target[p][i] = index;
            return;
          }
        }
      }
    }
    throw new IllegalStateException("no field " + object + "." + field + " in the layout");
  }

  private static ColumnSpec.Kind kind(JsonLayout.Type type) {
    return switch (type) {
      case TEXT, TEXT_LIST, JSON -> ColumnSpec.Kind.STRING;
      case INT -> ColumnSpec.Kind.INT32;
      case BIGINT -> ColumnSpec.Kind.INT64;
      case HUGE -> ColumnSpec.Kind.DECIMAL38;
      case DOUBLE -> ColumnSpec.Kind.DOUBLE;
      case BOOLEAN -> ColumnSpec.Kind.BOOLEAN;
    };
  }

  /** The index in {@link JsonLayout#PARTS} of the collective perf object. */
  int collPart() {
    return partIndex(RecordKind.COLL.perfObject());
  }

  /** The index in {@link JsonLayout#PARTS} of the point-to-point perf object. */
  int p2pPart() {
    return partIndex(RecordKind.P2P.perfObject());
  }

  private static int partIndex(String name) {
    for (int p = 0; p < JsonLayout.PARTS.size(); p++) {
      if (JsonLayout.PARTS.get(p).name().equals(name)) {
        return p;
      }
    }
    throw new IllegalStateException("no object " + name + " in the layout");
  }

  /** The Parquet file's columns. */
  public List<ColumnSpec> specs() {
    return specs;
  }

  /** The file column a line field goes to, or -1. */
  int target(int part, int field) {
    return target[part][field];
  }

  /** The type of file column {@code index} (at least {@link #FIRST_FIELD}). */
  JsonLayout.Type type(int index) {
    return types.get(index - FIRST_FIELD);
  }

  /**
   * The raw rows of the files at {@code paths}, column for column as {@link RecordSchema#raw}
   * gives them with the typed reading; {@code r_file} is each file's path.
   */
  public String rawSql(List<String> paths) {
    StringJoiner j = new StringJoiner(",\n  ", "SELECT ", "");
    j.add("filename AS r_file");
    j.add("r_is_coll");
    j.add("r_is_p2p");
    for (int i = 0; i < columns.size(); i++) {
      String name = "r_" + columns.get(i).name();
      j.add(switch (types.get(i)) {
        case HUGE -> "CAST(" + name + " AS HUGEINT)";
        case TEXT_LIST -> "CAST(CAST(" + name + " AS JSON) AS VARCHAR[])";
        case JSON -> "CAST(json(" + name + ") AS VARCHAR)";
        default -> name;
      } + " AS " + name);
    }
    j.add("false AS r_wrong_type");
    return j + "\nFROM read_parquet(" + DuckDbEngine.literalList(paths) + ", filename = true)";
  }
}
