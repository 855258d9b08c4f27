package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.synthetic.SyntheticConfig;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The HTML report without a browser: well-formed, self-contained, and every chart carries data.
 * HtmlReportBrowserTest opens it in headless Chromium.
 */
class HtmlReportTest {
  @TempDir
  static Path tmp;
  static String html;
  static Document doc;

  @BeforeAll
  static void render() throws Exception {
    TestSupport.generate(SyntheticConfig.builder(tmp.resolve("logs")).iterations(200)
        .straggler(5, 0.3, 2_000_000).nodeClockOffsetsNanos(List.of(0L, 300_000L)).build());
    ReportResult r = TestSupport.report(tmp.resolve("out"), tmp.resolve("logs").toString());
    html = Files.readString(r.html(), StandardCharsets.UTF_8);
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(true);
    // No DTD or external entity may be fetched while parsing.
    f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
    doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(
        html.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void isWellFormedAndOpensOffline() {
    assertTrue(html.startsWith("<!DOCTYPE html>"));
    assertEquals("html", doc.getDocumentElement().getTagName());
    String lower = html.toLowerCase();
    assertFalse(lower.contains("<script"), "no script");
    assertFalse(lower.contains("<link"), "no external style sheet");
    assertFalse(lower.contains("<img"), "charts are inline SVG");
    assertFalse(lower.contains("@import") || lower.contains("url("), "no fetched CSS resource");
    assertFalse(lower.contains("@font-face"), "system fonts only");
    // The only URL is the SVG namespace, an identifier that is never fetched.
    Matcher m = Pattern.compile("https?://[^\"' <]+").matcher(html);
    while (m.find()) {
      assertEquals("http://www.w3.org/2000/svg", m.group());
    }
    NodeList links = doc.getElementsByTagName("a");
    for (int i = 0; i < links.getLength(); i++) {
      assertTrue(((Element) links.item(i)).getAttribute("href").startsWith("#"),
          "links stay inside the page");
    }
  }

  @Test
  void everyChartHasDataPoints() {
    NodeList svgs = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "svg");
    assertTrue(svgs.getLength() >= 12, "charts: " + svgs.getLength());
    List<String> empty = new ArrayList<>();
    for (int i = 0; i < svgs.getLength(); i++) {
      Element svg = (Element) svgs.item(i);
      int marks = 0;
      for (String tag : new String[] {"circle", "rect"}) {
        NodeList n = svg.getElementsByTagNameNS("http://www.w3.org/2000/svg", tag);
        for (int k = 0; k < n.getLength(); k++) {
          Element e = (Element) n.item(k);
          // Data marks carry a tooltip; legend swatches do not.
          if (e.getElementsByTagNameNS("http://www.w3.org/2000/svg", "title").getLength() > 0) {
            marks++;
          }
        }
      }
      String label = svg.getAttribute("aria-label");
      if (marks == 0 || svg.getTextContent().contains("no data")) {
        empty.add(label);
      }
    }
    assertTrue(empty.isEmpty(), "charts without data: " + empty);
  }

  @Test
  void hasTheRequiredChartsAndTheVerdict() {
    String[] expected = {"bus bandwidth by message size", "late arrivals per rank",
        "mean execution time per rank", "bus bandwidth by operation and size",
        "arrival delay, communicator"};
    for (String e : expected) {
      assertTrue(html.contains(e), "missing chart: " + e);
    }
    assertTrue(html.contains("Straggler: rank 5 of communicator"), "the verdict names rank 5");
    assertTrue(html.contains("node01, pid 10005"));
    assertTrue(html.contains("Process node01 pid 10005 is the straggler in"));
    // Histograms of execution time for the busiest groups.
    assertTrue(Pattern.compile("nvlink-only · AllGather · 4 MiB–8 MiB · [0-9,]+ records")
        .matcher(html).find());
  }
}
