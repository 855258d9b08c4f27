package io.ncclinspector.report.output;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes lists of records as CSV and JSON with the same column names: the record components in
 * snake_case. Non-finite numbers become empty cells and JSON nulls, never {@code NaN} (which is
 * not JSON). Text cells of the CSV that would start a spreadsheet formula are neutralised
 * ({@link #cell}); the JSON has every value as it is.
 */
public final class TableFiles {
  private static final PropertyNamingStrategies.SnakeCaseStrategy SNAKE =
      new PropertyNamingStrategies.SnakeCaseStrategy();
  private static final ObjectMapper JSON = mapper();

  private TableFiles() {}

  /** The JSON mapper all outputs use: snake_case, indented, non-finite numbers as null. */
  public static ObjectMapper json() {
    return JSON;
  }

  private static ObjectMapper mapper() {
    SimpleModule finite = new SimpleModule("finite-numbers");
    JsonSerializer<Double> doubles = new JsonSerializer<>() {
      @Override
      public void serialize(Double v, JsonGenerator g, SerializerProvider p) throws IOException {
        if (v == null || !Double.isFinite(v)) {
          g.writeNull();
        } else {
          g.writeNumber(v);
        }
      }
    };
    finite.addSerializer(Double.class, doubles);
    finite.addSerializer(double.class, doubles);
    return JsonMapper.builder()
        .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
        .enable(SerializationFeature.INDENT_OUTPUT)
        .addModule(finite)
        .build();
  }

  /** The column name of a record component. */
  public static String columnName(String component) {
    return SNAKE.translate(component);
  }

  /** Writes {@code name.csv} and {@code name.json} into {@code dir}. */
  public static <R extends Record> void write(Path dir, String name, Class<R> type, List<R> rows)
      throws IOException {
    writeCsv(dir.resolve(name + ".csv"), type, rows);
    JSON.writeValue(dir.resolve(name + ".json").toFile(), rows);
  }

  public static <R extends Record> void writeCsv(Path file, Class<R> type, List<R> rows)
      throws IOException {
    RecordComponent[] components = type.getRecordComponents();
    for (RecordComponent c : components) {
      // Records declared in non-public classes (tests, callers' own types) are readable too.
      c.getAccessor().trySetAccessible();
    }
    try (Writer w = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
      for (int i = 0; i < components.length; i++) {
        w.write(i == 0 ? "" : ",");
        w.write(columnName(components[i].getName()));
      }
      w.write('\n');
      for (R row : rows) {
        for (int i = 0; i < components.length; i++) {
          w.write(i == 0 ? "" : ",");
          Object v;
          try {
            v = components[i].getAccessor().invoke(row);
          } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + components[i], e);
          }
          w.write(cell(v));
        }
        w.write('\n');
      }
    }
  }

  /**
   * One CSV cell (RFC 4180 quoting). A text cell that a spreadsheet would take for a formula (it
   * begins with {@code =}, {@code +}, {@code -}, {@code @}, a tab or a carriage return: a
   * communicator or host name from a log, say {@code =cmd|' /C calc'!A0}) gets a leading
   * {@code '}, as OWASP recommends against CSV injection; numbers are written as they are.
   */
  static String cell(Object v) {
    if (v == null) {
      return "";
    }
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      return Double.isFinite(d) ? number(d) : "";
    }
    String s = v instanceof Number ? v.toString() : neutralised(v.toString());
    boolean quote = s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0
        || s.indexOf('\r') >= 0 || (!s.isEmpty() && (s.charAt(0) == ' '
        || s.charAt(s.length() - 1) == ' '));
    return quote ? '"' + s.replace("\"", "\"\"") + '"' : s;
  }

  /** Text with a {@code '} in front if a spreadsheet would run it as a formula. */
  static String neutralised(String text) {
    if (text.isEmpty()) {
      return text;
    }
    char c = text.charAt(0);
    boolean formula = c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
    return formula ? "'" + text : text;
  }

  /** Up to six decimals, no exponent, no trailing zeros. */
  static String number(double d) {
    if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      return Long.toString((long) d);
    }
    return BigDecimal.valueOf(d).setScale(6, RoundingMode.HALF_EVEN).stripTrailingZeros()
        .toPlainString();
  }
}
