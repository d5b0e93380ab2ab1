package dev.idemlab.lab.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40: the README became a short page whose links lead into {@code docs/} and {@code results/}, and
 * those pages link to each other. A link that leads nowhere is what a reader meets after a page is moved
 * or renamed, so every relative link of the README, of {@code docs/*.md} and of {@code results/**.md}
 * must name a file that exists and, for a Markdown page, a heading that page has (GitHub's anchors).
 */
class DocumentationLinksTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern LINK = Pattern.compile("\\[[^\\]\\n]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("#{1,6} (.*)");
    private static final Pattern SCHEME = Pattern.compile("[a-z][a-z0-9+.-]*:.*");

    @Test
    void everyRelativeLinkOfTheReadmeTheDocsAndTheResultsResolves() throws IOException {
        List<Path> pages = pages(ROOT);
        assertThat(pages).as("the README and the docs pages").contains(ROOT.resolve("README.md"))
                .anySatisfy(page -> assertThat(page.toString()).contains("docs"));
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path page : pages) {
            List<String> found = new ArrayList<>();
            links += brokenLinks(page, found);
            broken.addAll(found);
        }
        assertThat(links).as("relative links checked").isGreaterThan(50);
        assertThat(broken).as("links that lead nowhere").isEmpty();
    }

    @Test
    void theReadmeLinksToEveryPageOfTheDocs() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            for (Path page : docs.filter(p -> p.toString().endsWith(".md")).toList()) {
                assertThat(readme).as("README links to docs/" + page.getFileName())
                        .contains("](docs/" + page.getFileName());
            }
        }
    }

    @Test
    void aMissingFileAndAMissingHeadingAreBothReported(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("docs"));
        Files.writeString(dir.resolve("docs/guide.md"), "# Guide\n\n## On Spring Boot: the starter and `@Idempotent`\n\n"
                + "```\n# not a heading\n```\n");
        Files.writeString(dir.resolve("README.md"), "[ok](docs/guide.md#on-spring-boot-the-starter-and-idempotent) "
                + "[gone](docs/gone.md) [bad anchor](docs/guide.md#not-a-heading) [web](https://example.com/x) "
                + "[self](#readme-heading)\n\n# README heading\n\n```\n[in code](nowhere.md)\n```\n");
        List<String> broken = new ArrayList<>();
        int checked = brokenLinks(dir.resolve("README.md"), broken);
        assertThat(checked).isEqualTo(4);
        assertThat(broken).hasSize(2).anySatisfy(b -> assertThat(b).contains("docs/gone.md"))
                .anySatisfy(b -> assertThat(b).contains("#not-a-heading"));
    }

    /** The README, every page of docs/ and every Markdown page under results/. */
    private static List<Path> pages(Path root) throws IOException {
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
        for (String folder : List.of("docs", "results")) {
            try (Stream<Path> walk = Files.walk(root.resolve(folder))) {
                walk.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
            }
        }
        return pages;
    }

    /** Adds each relative link of {@code page} that leads nowhere to {@code broken}; returns how many it checked. */
    private static int brokenLinks(Path page, List<String> broken) throws IOException {
        int checked = 0;
        List<String> lines = proseLines(page);
        for (int i = 0; i < lines.size(); i++) {
            Matcher link = LINK.matcher(lines.get(i));
            while (link.find()) {
                String target = link.group(1);
                if (SCHEME.matcher(target).matches()) {
                    continue;
                }
                checked++;
                String problem = problem(page, target);
                if (problem != null) {
                    broken.add(page + ":" + (i + 1) + ": " + target + " (" + problem + ")");
                }
            }
        }
        return checked;
    }

    private static String problem(Path page, String target) throws IOException {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path linked = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(linked)) {
            return "no such file";
        }
        if (hash >= 0 && linked.toString().endsWith(".md") && !anchors(linked).contains(target.substring(hash + 1))) {
            return "no such heading";
        }
        return null;
    }

    /** The page's lines with fenced code blocks blanked, so that neither links nor headings are read from code. */
    private static List<String> proseLines(Path page) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            boolean fence = line.startsWith("```");
            lines.add(fenced || fence ? "" : line);
            fenced ^= fence;
        }
        return lines;
    }

    /** GitHub's anchors: lower case, punctuation dropped, spaces to hyphens, a repeated one numbered. */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : proseLines(page)) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = heading.group(1).strip().toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
        }
        return anchors;
    }
}
