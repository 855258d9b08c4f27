package io.ncclinspector.report.output;

import io.ncclinspector.report.output.chart.Svg;
import java.util.ArrayList;
import java.util.List;

/** Small helpers to write well-formed HTML: escaping and tables. */
final class Html {
  private Html() {}

  static String esc(String s) {
    return Svg.escape(s);
  }

  /** A table built row by row; numeric columns are right-aligned. */
  static final class Table {
    private final String[] headers;
    private final boolean[] numeric;
    private final boolean[] wrap;
    private final List<String[]> rows = new ArrayList<>();
    private final List<String> rowClasses = new ArrayList<>();

    Table(String... headers) {
      this.headers = new String[headers.length];
      this.numeric = new boolean[headers.length];
      this.wrap = new boolean[headers.length];
      for (int i = 0; i < headers.length; i++) {
        // A leading '#' marks a numeric column, a leading '~' a long text that may wrap.
        numeric[i] = headers[i].startsWith("#");
        wrap[i] = headers[i].startsWith("~");
        this.headers[i] = numeric[i] || wrap[i] ? headers[i].substring(1) : headers[i];
      }
    }

    Table row(Object... cells) {
      return rowWithClass(null, cells);
    }

    Table rowWithClass(String cssClass, Object... cells) {
      String[] r = new String[headers.length];
      for (int i = 0; i < headers.length; i++) {
        r[i] = i < cells.length && cells[i] != null ? cells[i].toString() : "";
      }
      rows.add(r);
      rowClasses.add(cssClass);
      return this;
    }

    int size() {
      return rows.size();
    }

    String render() {
      StringBuilder b = new StringBuilder("<div class=\"table-wrap\"><table><thead><tr>");
      for (int i = 0; i < headers.length; i++) {
        b.append(numeric[i] ? "<th class=\"num\">" : "<th>").append(esc(headers[i]))
            .append("</th>");
      }
      b.append("</tr></thead><tbody>");
      for (int k = 0; k < rows.size(); k++) {
        String cls = rowClasses.get(k);
        b.append(cls == null ? "<tr>" : "<tr class=\"" + esc(cls) + "\">");
        String[] r = rows.get(k);
        for (int i = 0; i < r.length; i++) {
          b.append(numeric[i] ? "<td class=\"num\">" : wrap[i] ? "<td class=\"wrap\">" : "<td>")
              .append(esc(r[i])).append("</td>");
        }
        b.append("</tr>");
      }
      return b.append("</tbody></table></div>").toString();
    }
  }
}
