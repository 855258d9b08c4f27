package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.ingest.RecordSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The module README documents the Parquet schema column by column, in order, with types, and
 * marks the core columns.
 */
class ReadmeSchemaTest {
  @Test
  void readmeListsEveryColumnWithItsType() throws Exception {
    Path readme = Path.of("README.md");
    assertTrue(Files.exists(readme), "inspector-report/README.md (tests run in the module)");
    String text = Files.readString(readme);
    int start = text.indexOf("| column | type | core |");
    assertTrue(start >= 0, "schema table header");
    Pattern row = Pattern.compile("^\\| `([a-z0-9_]+)` \\| `([A-Z0-9(),\\[\\]]+)` \\| (core)? *\\|",
        Pattern.MULTILINE);
    Matcher m = row.matcher(text.substring(start));
    List<String> documented = new ArrayList<>();
    List<String> core = new ArrayList<>();
    while (m.find()) {
      documented.add(m.group(1) + " " + m.group(2));
      if (m.group(3) != null) {
        core.add(m.group(1));
      }
    }
    // The columns marked core are those of --records core.
    assertEquals(RecordSchema.ColumnSet.CORE.columns().stream().map(RecordSchema.Column::name)
        .toList(), core);
    List<String> actual = RecordSchema.COLUMNS.stream().map(c -> c.name() + " " + c.type())
        .toList();
    assertEquals(actual, documented.subList(0, Math.min(documented.size(), actual.size())));
    assertEquals(actual.size(), documented.size());
  }
}
