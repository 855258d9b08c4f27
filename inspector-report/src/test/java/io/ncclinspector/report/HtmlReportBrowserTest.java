package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report opened in a real browser (headless Chromium): nothing reported on its console,
 * every chart laid out with its data marks drawn, and a full-page screenshot kept as a build
 * artifact ({@code target/browser-check/report.png}). Where no Chromium is installed the test is
 * skipped with one NOT CHECKED line (.ci/run installs it).
 */
class HtmlReportBrowserTest {
  @TempDir Path tmp;

  /** Per chart: its label, laid-out size, data marks (a circle or rect with a tooltip) and how many of them are drawn. */
  private static final String CHARTS = """
      JSON.stringify(Array.from(document.querySelectorAll('svg')).map(svg => {
        const box = svg.getBoundingClientRect();
        const marks = Array.from(svg.querySelectorAll('circle, rect')).filter(e => e.querySelector('title'));
        const drawn = marks.filter(e => {
          const b = e.getBoundingClientRect();
          const style = getComputedStyle(e);
          return (b.width > 0 || b.height > 0) && style.display !== 'none' && style.visibility !== 'hidden'
              && b.right >= box.left - 1 && b.left <= box.right + 1 && b.bottom >= box.top - 1 && b.top <= box.bottom + 1;
        }).length;
        return {label: svg.getAttribute('aria-label'), width: box.width, height: box.height,
                marks: marks.length, drawn: drawn};
      }))""";

  @Test
  void theReportRendersInChromiumWithoutConsoleErrorsAndEveryChartDrawn() throws Exception {
    Path chromium = HeadlessChromium.find();
    if (chromium == null) {
      String line = "NOT CHECKED: the HTML report in a real browser (HtmlReportBrowserTest: no chromium installed;"
          + " apt-get install chromium, or set CHROMIUM; .ci/run installs it)";
      System.out.println(line);
      Assumptions.abort(line);
    }
    TestSupport.generate(SyntheticConfig.builder(tmp.resolve("logs")).iterations(200)
        .straggler(5, 0.3, 2_000_000).nodeClockOffsetsNanos(List.of(0L, 300_000L)).build());
    ReportResult r = TestSupport.report(tmp.resolve("out"), tmp.resolve("logs").toString());

    try (HeadlessChromium browser = HeadlessChromium.start(chromium)) {
      browser.open(r.html().toUri(), 1280, 900);
      JsonNode charts = new com.fasterxml.jackson.databind.ObjectMapper().readTree(browser.evaluate(CHARTS).asText());
      assertTrue(charts.size() >= 12, "charts: " + charts.size());
      List<String> notDrawn = new ArrayList<>();
      for (JsonNode c : charts) {
        if (c.get("width").asDouble() < 50 || c.get("height").asDouble() < 50 || c.get("marks").asInt() == 0
            || c.get("drawn").asInt() != c.get("marks").asInt()) {
          notDrawn.add(c.toString());
        }
      }
      assertEquals(List.of(), notDrawn, "charts not drawn, or with marks outside them");

      int height = browser.evaluate("document.documentElement.scrollHeight").asInt();
      browser.viewport(1280, Math.min(Math.max(height, 900), 30_000));
      byte[] png = browser.screenshot();
      Path artifact = Path.of("target", "browser-check", "report.png").toAbsolutePath();
      Files.createDirectories(artifact.getParent());
      Files.write(artifact, png);
      BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
      assertEquals(1280, image.getWidth());
      assertTrue(image.getHeight() >= 900, "height " + image.getHeight());
      assertTrue(inkShare(image) > 0.02, "the screenshot shows the page, not a blank: " + artifact);

      assertEquals(List.of(), browser.problems(), "the page reported problems on its console");
    }
  }

  /** The share of pixels that are not background white. */
  private static double inkShare(BufferedImage image) {
    long ink = 0;
    long all = 0;
    for (int y = 0; y < image.getHeight(); y += 4) {
      for (int x = 0; x < image.getWidth(); x += 4) {
        int rgb = image.getRGB(x, y) & 0xffffff;
        all++;
        if (rgb != 0xffffff) {
          ink++;
        }
      }
    }
    return (double) ink / all;
  }
}
