package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ncclinspector.report.output.TableFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableFilesTest {
  record Row(String commId, int nRanks, Double busbwP50Gbs, double execUs, String note) {}

  @Test
  void csvAndJsonShareSnakeCaseNamesAndNeverWriteNaN(@TempDir Path dir) throws Exception {
    List<Row> rows = List.of(
        new Row("0xab", 8, 12.5, 0.0000012345, "plain"),
        new Row("0xcd", 2, null, Double.NaN, "with, comma and \"quotes\"\nand a newline"));
    TableFiles.write(dir, "t", Row.class, rows);
    String csv = Files.readString(dir.resolve("t.csv"));
    String[] lines = csv.split("\n", 2);
    assertEquals("comm_id,n_ranks,busbw_p50_gbs,exec_us,note", lines[0]);
    assertTrue(lines[1].startsWith("0xab,8,12.5,0.000001,plain\n"), lines[1]);
    assertTrue(csv.contains("0xcd,2,,,\"with, comma and \"\"quotes\"\"\nand a newline\"\n"), csv);
    JsonNode json = TableFiles.json().readTree(dir.resolve("t.json").toFile());
    assertEquals(2, json.size());
    assertEquals(8, json.get(0).get("n_ranks").asInt());
    assertTrue(json.get(1).get("exec_us").isNull(), "NaN must be written as null");
    assertTrue(json.get(1).get("busbw_p50_gbs").isNull());
  }

  record Named(String commName, long delta, Double offsetUs, String hostname) {}

  @Test
  void textThatASpreadsheetWouldRunIsNeutralisedNumbersAreNot(@TempDir Path dir) throws Exception {
    List<Named> rows = List.of(
        new Named("=cmd|' /C calc'!A0", -5, -1.5, "@SUM(1+1)"),
        new Named("+1", 0, 0.0, "-2+3"),
        new Named("\tx", 1, 2.0, "\r=1"),
        new Named("dp-0", 2, null, "node-a"));
    TableFiles.write(dir, "t", Named.class, rows);
    String[] lines = Files.readString(dir.resolve("t.csv")).split("\n");
    assertEquals("'=cmd|' /C calc'!A0,-5,-1.5,'@SUM(1+1)", lines[1]);
    assertEquals("'+1,0,0,'-2+3", lines[2]);
    assertEquals("'\tx,1,2,\"'\r=1\"", lines[3]);
    assertEquals("dp-0,2,,node-a", lines[4], "text that only contains such characters stays");
    JsonNode json = TableFiles.json().readTree(dir.resolve("t.json").toFile());
    assertEquals("=cmd|' /C calc'!A0", json.get(0).get("comm_name").asText(), "JSON keeps the value");
  }
}
