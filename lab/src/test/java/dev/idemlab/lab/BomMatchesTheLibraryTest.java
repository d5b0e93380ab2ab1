package dev.idemlab.lab;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26: the BOM has no parent (so that a service importing it gets none of the lab's third-party
 * versions), so nothing but this test keeps it in step with the build: its version is the project's,
 * it names every library artifact under {@code idempotency/} at that version, and of third-party
 * artifacts only what the Redis store runs on (their versions are checked where the tests run:
 * RedisStoreRunsOnTheBomsVersionsTest, StarterRunsOnTheBomsVersionsTest).
 */
class BomMatchesTheLibraryTest {

    private static final Path ROOT = Path.of("..");

    @Test
    void theBomNamesEveryLibraryArtifactAtTheProjectsVersion() throws Exception {
        Document root = parse(ROOT.resolve("pom.xml"));
        String version = child(root.getDocumentElement(), "version");
        Document bom = parse(ROOT.resolve("idempotency/idempotency-bom/pom.xml"));
        assertThat(child(bom.getDocumentElement(), "version")).isEqualTo(version);

        List<String> library = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT.resolve("idempotency"))) {
            for (Path module : modules.filter(m -> Files.exists(m.resolve("pom.xml"))).toList()) {
                String artifact = child(parse(module.resolve("pom.xml")).getDocumentElement(), "artifactId");
                if (!artifact.equals("idempotency-bom")) {
                    library.add(artifact);
                }
            }
        }
        List<String> managed = new ArrayList<>();
        List<String> thirdParty = new ArrayList<>();
        NodeList dependencies = bom.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            if (!child(dependency, "groupId").equals("dev.idemlab")) {
                thirdParty.add(child(dependency, "artifactId"));
                continue;
            }
            assertThat(child(dependency, "version")).as(child(dependency, "artifactId")).isEqualTo(version);
            managed.add(child(dependency, "artifactId"));
        }
        assertThat(managed).containsExactlyInAnyOrderElementsOf(library);
        assertThat(thirdParty).containsExactlyInAnyOrder("lettuce-core", "netty-bom", "reactor-core");
        assertThat(property(bom, "lettuce.version")).as("the bom's Lettuce is the build's")
                .isEqualTo(property(root, "lettuce.version"));
    }

    private static Document parse(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    private static String property(Document pom, String name) {
        return child((Element) pom.getDocumentElement().getElementsByTagName("properties").item(0), name);
    }

    /** The text of {@code parent}'s own child element {@code name} (not a nested one's). */
    private static String child(Element parent, String name) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return element.getTextContent().trim();
            }
        }
        throw new AssertionError(parent.getTagName() + " has no " + name);
    }
}
