package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.infra.StoreBackends;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mutants of {@code mutants/} (scripts/mutants.sh runs them under the nemesis) still fit the tree:
 * every patch of the manifest applies, so a refactor that orphans a mutant fails the build here, not
 * the next publish; and one mutant, built as the script builds it (its patched class compiled into a
 * folder ahead of the lab's class path), is caught by a short nemesis run on the memory store.
 */
class MutantPatchesTest {

    @Test
    void theManifestListsAtLeastFifteenMutantsEachWithAPatchOnKnownStores() throws IOException {
        List<MutantPatch> mutants = MutantPatch.all();
        assertThat(mutants).hasSizeGreaterThanOrEqualTo(15);
        Set<String> ids = new HashSet<>();
        for (MutantPatch mutant : mutants) {
            assertThat(ids.add(mutant.id())).as("%s is listed once", mutant.id()).isTrue();
            assertThat(MutantPatch.patchOf(mutant.id())).as("the patch of %s", mutant.id()).isRegularFile();
            assertThat(mutant.stores()).as("the stores of %s", mutant.id()).isNotEmpty()
                    .allSatisfy(store -> assertThat(StoreBackends.NAMES).contains(store));
            assertThat(mutant.bug()).as("what %s breaks", mutant.id()).isNotBlank();
            assertThat(mutant.hunksByFile()).as("the files %s patches", mutant.id()).isNotEmpty()
                    .allSatisfy((file, hunks) -> {
                        // The library's main sources and resources, or the Spring Boot sample's and the starter's
                        // Java sources (built into a copy of the sample's jar, run through --through sample).
                        assertThat(file).matches("idempotency/[a-z-]+/src/main/(java|resources)/.+"
                                + "|examples/spring-boot-payments/src/main/java/.+")
                                .doesNotStartWith("idempotency/idempotency-spring-boot-starter/src/main/resources/");
                        assertThat(hunks).isNotEmpty();
                    });
        }
        try (Stream<Path> patches = Files.list(MutantPatch.ROOT.resolve("mutants"))) {
            assertThat(patches.map(path -> path.getFileName().toString()).filter(name -> name.endsWith(".patch"))
                    .map(name -> name.substring(0, name.length() - ".patch".length())))
                    .as("every patch in mutants/ is in the manifest").allSatisfy(id -> assertThat(ids).contains(id));
        }
    }

    @Test
    void everyPatchStillAppliesToTheTree() throws Exception {
        List<String> orphaned = new ArrayList<>();
        for (MutantPatch mutant : MutantPatch.all()) {
            for (Map.Entry<String, List<MutantPatch.Hunk>> file : mutant.hunksByFile().entrySet()) {
                Path source = MutantPatch.ROOT.resolve(file.getKey());
                try {
                    String text = Files.readString(source, StandardCharsets.UTF_8);
                    assertThat(mutant.applyTo(file.getKey(), text)).as("%s changes %s", mutant.id(), file.getKey())
                            .isNotEqualTo(text);
                } catch (IOException e) {
                    orphaned.add(mutant.id() + ": " + e);
                } catch (IllegalStateException e) {
                    orphaned.add(e.getMessage());
                }
            }
            // Where git is at hand, its own check too: the script applies the patches with it.
            if (gitWorks()) {
                Process check = new ProcessBuilder("git", "apply", "--check", MutantPatch.patchOf(mutant.id()).toString())
                        .directory(MutantPatch.ROOT.toFile()).redirectErrorStream(true).start();
                String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (check.waitFor() != 0) {
                    orphaned.add(mutant.id() + ": git apply --check: " + output.strip());
                }
            }
        }
        assertThat(orphaned).as("mutants whose patch no longer fits the tree: rewrite each against the new code, "
                + "same bug").isEmpty();
    }

    /**
     * The memory store's reserve that takes over any live reservation charges twice within seconds: built
     * as scripts/mutants.sh builds it, the patched class ahead of the lab's on the class path of a child
     * JVM, the nemesis exits 1 with a duplicate charge (which also shows the patched class shadowed the
     * lab's, since the tree as it is passes the same nemesis in NemesisOnEveryStoreTest).
     */
    @Test
    void aMutantOfTheMemoryStoreIsCaughtByAShortNemesisRun(@TempDir Path dir) throws Exception {
        MutantPatch mutant = MutantPatch.all().stream()
                .filter(each -> each.id().equals("memory-reserve-takes-live-pending")).findFirst().orElseThrow();
        String file = mutant.hunksByFile().keySet().iterator().next();
        Path source = dir.resolve("src").resolve(file.substring(file.indexOf("/src/main/java/") + "/src/main/java/".length()));
        Files.createDirectories(source.getParent());
        Files.writeString(source, mutant.applyTo(file, Files.readString(MutantPatch.ROOT.resolve(file))));
        Path classes = Files.createDirectories(dir.resolve("classes"));
        String classPath = System.getProperty("java.class.path");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream compilerOutput = new ByteArrayOutputStream();
        int compiled = javac.run(null, compilerOutput, compilerOutput, "--release", "17", "-nowarn", "-cp", classPath,
                "-d", classes.toString(), source.toString());
        assertThat(compiled).as(compilerOutput.toString(StandardCharsets.UTF_8)).isZero();

        long seed = NemesisOnEveryStoreTest.seed();
        Path output = dir.resolve("nemesis.txt");
        Process nemesis = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classes + java.io.File.pathSeparator + classPath, "dev.idemlab.lab.cli.LabMain", "nemesis",
                "--store", "memory", "--seed", Long.toString(seed), "--duration", "8s")
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            assertThat(nemesis.waitFor(5, TimeUnit.MINUTES)).as("the nemesis answered").isTrue();
        } finally {
            nemesis.destroyForcibly();
        }
        String report = Files.readString(output);
        assertThat(nemesis.exitValue()).as(report).isEqualTo(1);
        assertThat(report).containsPattern("(?m)^violations: [1-9][0-9]*, the first shown by ")
                .contains("duplicate-charge").contains("seed " + seed);
    }

    private static boolean gitWorks() {
        try {
            Process git = new ProcessBuilder("git", "rev-parse", "--is-inside-work-tree")
                    .directory(MutantPatch.ROOT.toFile()).redirectErrorStream(true).start();
            git.getInputStream().readAllBytes();
            return git.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
