package io.ncclinspector.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The bill of materials (inspector-bom) lists every published artifact, and nothing else, at the
 * project's version: a module added later and forgotten there, or a version bumped in one place,
 * fails here. Published: every jar module of the build that does not skip deployment.
 */
class BomTest {
  private static final Path ROOT = Path.of(System.getProperty("nccl.inspector.testdata.dir", "../testdata")).getParent();

  private static Document parse(Path pom) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return f.newDocumentBuilder().parse(pom.toFile());
  }

  private static String child(Element e, String name) {
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c && c.getTagName().equals(name)) {
        return c.getTextContent().trim();
      }
    }
    return null;
  }

  private static List<Element> children(Element e, String name) {
    List<Element> out = new ArrayList<>();
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c && c.getTagName().equals(name)) {
        out.add(c);
      }
    }
    return out;
  }

  /** The published jar modules under a pom (recursively through pom modules). */
  private static void published(Path dir, Set<String> out) throws Exception {
    Element project = parse(dir.resolve("pom.xml")).getDocumentElement();
    String packaging = child(project, "packaging");
    Element properties = children(project, "properties").stream().findFirst().orElse(null);
    boolean skipped = properties != null && "true".equals(child(properties, "maven.deploy.skip"));
    if ("pom".equals(packaging)) {
      for (Element modules : children(project, "modules")) {
        for (Element m : children(modules, "module")) {
          published(dir.resolve(m.getTextContent().trim()), out);
        }
      }
    } else if (!skipped) {
      out.add(child(project, "artifactId"));
    }
  }

  @Test
  void theBomListsEveryPublishedArtifactAtTheProjectsVersion() throws Exception {
    assertTrue(Files.exists(ROOT.resolve("inspector-bom/pom.xml")), "no BOM under " + ROOT);
    Set<String> expected = new TreeSet<>();
    published(ROOT, expected);
    Element bom = parse(ROOT.resolve("inspector-bom/pom.xml")).getDocumentElement();
    Element parent = parse(ROOT.resolve("pom.xml")).getDocumentElement();
    assertEquals(child(parent, "version"), child(bom, "version"), "the BOM's version is the project's");
    assertEquals(null, child(bom, "parent"), "no parent: importing the BOM brings its versions and nothing else");
    Set<String> listed = new TreeSet<>();
    NodeList deps = bom.getElementsByTagName("dependency");
    for (int i = 0; i < deps.getLength(); i++) {
      Element d = (Element) deps.item(i);
      assertEquals("io.ncclinspector", child(d, "groupId"));
      assertEquals("${project.version}", child(d, "version"));
      listed.add(child(d, "artifactId"));
    }
    expected.remove("inspector-bom");
    assertEquals(expected, listed, "the BOM lists exactly the published artifacts");
  }
}
