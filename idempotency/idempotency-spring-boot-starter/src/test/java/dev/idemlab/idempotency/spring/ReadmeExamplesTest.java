package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyAspectAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26: every Java snippet of the guide (the README and the pages of {@code docs/}, where the library's
 * sections moved in issue 40) compiles as it stands (imports included) against the library, with
 * {@code -parameters} as the guide asks, and the
 * key ones run on the in-memory store: the builder API, the {@code @Idempotent} proxy, the starter's
 * advice on the {@code @Service} and the servlet filter in a real Tomcat, which must not answer 401 to
 * a request from a service with no login in front of it. A snippet that drifts from the API fails here.
 */
class ReadmeExamplesTest {

    private static final Path README = Path.of("../../README.md");
    private static final Path DOCS = Path.of("../../docs");
    /** The pages whose snippets the library's users paste: each must hold at least one. */
    private static final List<String> LIBRARY_PAGES =
            List.of("library.md", "starter.md", "plain-api.md", "local-effects.md", "http-filter.md");
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```\n", Pattern.DOTALL);
    /** A block of several files names each on a line of its own: {@code // Charge.java}. */
    private static final Pattern FILE_LINE = Pattern.compile("(?m)^// (\\w+)\\.java\\b.*\n");
    private static final Pattern PUBLIC_TYPE =
            Pattern.compile("(?m)^public (?:final |abstract )?(?:class|interface|record|enum) (\\w+)");

    /** Runs the snippets; compiled with them, so it names their types as a user's code would. */
    private static final String DRIVER = """
            import dev.idemlab.idempotency.IdempotencyCoordinator;
            import dev.idemlab.idempotency.IdempotencyKeyReuseException;
            import dev.idemlab.idempotency.spi.IdempotencyStore;
            import java.util.concurrent.atomic.AtomicInteger;

            public final class ReadmeDriver {
                public static PaymentProvider provider(AtomicInteger charges) {
                    return (orderId, amount, key) -> new Charge("ch_" + charges.incrementAndGet(), orderId, amount);
                }

                public static Payments.Orders orders(AtomicInteger rows) {
                    return request -> rows.incrementAndGet();
                }

                public static String builderAndProxy(IdempotencyStore store) {
                    AtomicInteger charges = new AtomicInteger();
                    try (Checkout checkout = new Checkout(store, provider(charges))) {
                        ChargeRequest request = new ChargeRequest("o-1", 500);
                        String first = checkout.charge("k1", request).id();
                        String retry = checkout.charge("k1", request).id();
                        String reuse;
                        try {
                            checkout.charge("k1", new ChargeRequest("o-1", 5));
                            reuse = "ran";
                        } catch (IdempotencyKeyReuseException e) {
                            reuse = "refused";
                        }
                        ChargeService proxied = checkout.charges();
                        String viaProxy = proxied.charge("k2", request, null).id();
                        String proxyRetry = proxied.charge("k2", request, null).id();
                        return String.join(" ", first, retry, reuse, viaProxy, proxyRetry, "charges=" + charges.get());
                    }
                }

                public static String chargeTwice(Object payments) {
                    Payments bean = (Payments) payments;
                    ChargeRequest request = new ChargeRequest("o-7", 700);
                    return bean.charge("k7", request, null).id() + " " + bean.charge("k7", request, null).id();
                }
            }
            """;

    private static URLClassLoader snippets;

    @BeforeAll
    static void compileTheReadmesSnippets(@TempDir Path work) throws Exception {
        Path sources = Files.createDirectories(work.resolve("src"));
        Path classes = Files.createDirectories(work.resolve("classes"));
        List<Path> files = new ArrayList<>();
        List<String> blocks = javaBlocks();
        assertThat(blocks).as("the guide's Java snippets").hasSizeGreaterThanOrEqualTo(8);
        for (int i = 0; i < blocks.size(); i++) {
            for (String file : FILE_LINE.split(blocks.get(i))) {
                if (file.isBlank()) {
                    continue;
                }
                Matcher type = PUBLIC_TYPE.matcher(file);
                files.add(Files.writeString(sources.resolve((type.find() ? type.group(1) : "Snippet" + i) + ".java"),
                        file));
            }
        }
        files.add(Files.writeString(sources.resolve("ReadmeDriver.java"), DRIVER));

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fileManager = javac.getStandardFileManager(diagnostics, null, null)) {
            boolean compiled = javac.getTask(null, fileManager, diagnostics,
                    List.of("--release", "17", "-parameters", "-proc:none", "-classpath", testClassPath(),
                            "-d", classes.toString()),
                    null, fileManager.getJavaFileObjectsFromPaths(files)).call();
            StringBuilder errors = new StringBuilder();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    errors.append(d.getSource() == null ? "" : Path.of(d.getSource().toUri()).getFileName())
                            .append(':').append(d.getLineNumber()).append(": ").append(d.getMessage(null)).append('\n');
                }
            }
            assertThat(compiled).as("the guide's snippets compile:\n" + errors).isTrue();
        }
        snippets = new URLClassLoader(new URL[] {classes.toUri().toURL()}, ReadmeExamplesTest.class.getClassLoader());
    }

    @Test
    void theBuilderAndTheProxyChargeOncePerKeyAndRefuseAKeyReusedForAnotherAmount() throws Exception {
        Object ran = driver("builderAndProxy", Class.forName("dev.idemlab.idempotency.spi.IdempotencyStore"))
                .invoke(null, new InMemoryIdempotencyStore());
        assertThat(ran).isEqualTo("ch_1 ch_1 refused ch_2 ch_2 charges=2");
    }

    @Test
    void theStartersServiceChargesOnceThroughTheAdvice() throws Exception {
        Class<Object> payments = load("Payments");
        Class<Object> orders = load("Payments$Orders");
        Class<Object> provider = load("PaymentProvider");
        java.util.concurrent.atomic.AtomicInteger charges = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger rows = new java.util.concurrent.atomic.AtomicInteger();
        Object theProvider = driver("provider", java.util.concurrent.atomic.AtomicInteger.class).invoke(null, charges);
        Object theOrders = driver("orders", java.util.concurrent.atomic.AtomicInteger.class).invoke(null, rows);
        new ApplicationContextRunner()
                .withClassLoader(snippets)
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                        IdempotencyStoreAutoConfiguration.class, IdempotencyCoordinatorAutoConfiguration.class,
                        IdempotencyAspectAutoConfiguration.class))
                .withBean(orders, () -> theOrders)
                .withBean(provider, () -> theProvider)
                .withBean(payments)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(driver("chargeTwice", Object.class).invoke(null, context.getBean(payments)))
                            .isEqualTo("ch_1 ch_1");
                });
        assertThat(charges).hasValue(1);
        assertThat(rows).hasValue(1);
    }

    @Test
    void theServletSnippetFollowedLiterallyAnswersARequestFromNoLoggedInClientAndReplaysItsRetry(@TempDir Path base)
            throws Exception {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore())
                .config(IdempotencyConfig.custom().policy(InFlightPolicy.RAISE).build()).build();
        Method register = load("IdempotentRoutes").getMethod("register", ServletContext.class, IdempotencyCoordinator.class);
        java.util.concurrent.atomic.AtomicInteger charges = new java.util.concurrent.atomic.AtomicInteger();

        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setHostname("127.0.0.1");
        tomcat.getConnector().setPort(0);
        Context context = tomcat.addContext("", base.toString());
        Tomcat.addServlet(context, "orders", new HttpServlet() {
            @Override
            protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
                response.setStatus(201);
                response.setContentType("application/json");
                response.getWriter().write("{\"charge\":\"ch_" + charges.incrementAndGet() + "\"}");
            }
        });
        context.addServletMappingDecoded("/orders/*", "orders");
        context.addServletContainerInitializer((types, servlets) -> {
            try {
                register.invoke(null, servlets, coordinator);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }, null);
        tomcat.start();
        try {
            URI charge = URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/orders/o-1/charge");
            HttpClient http = HttpClient.newHttpClient();
            HttpRequest request = HttpRequest.newBuilder(charge).header("Content-Type", "application/json")
                    .header("Idempotency-Key", "\"k1\"").POST(HttpRequest.BodyPublishers.ofString("{\"amount\":500}"))
                    .build();
            HttpResponse<String> first = http.send(request, HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> retry = http.send(request, HttpResponse.BodyHandlers.ofString());

            assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
            assertThat(retry.statusCode()).isEqualTo(201);
            assertThat(retry.body()).isEqualTo(first.body()).isEqualTo("{\"charge\":\"ch_1\"}");
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(charges).hasValue(1);
        } finally {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    /**
     * The Java blocks of the README and of every page of {@code docs/}, in file-name order: a snippet
     * on any page of the guide must compile, and each page of the library's guide must still have its own.
     */
    static List<String> javaBlocks() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(README));
        try (var docs = Files.list(DOCS)) {
            docs.filter(page -> page.getFileName().toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        for (String page : LIBRARY_PAGES) {
            assertThat(javaBlocksOf(DOCS.resolve(page))).as("the Java snippets of docs/" + page).isNotEmpty();
        }
        List<String> blocks = new ArrayList<>();
        for (Path page : pages) {
            blocks.addAll(javaBlocksOf(page));
        }
        return blocks;
    }

    private static List<String> javaBlocksOf(Path page) throws IOException {
        Matcher block = JAVA_BLOCK.matcher(Files.readString(page));
        List<String> blocks = new ArrayList<>();
        while (block.find()) {
            blocks.add(block.group(1));
        }
        return blocks;
    }

    /** Surefire hands the real class path to the test JVM in this property (its own may be a manifest jar). */
    private static String testClassPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    @SuppressWarnings("unchecked")
    private static Class<Object> load(String name) throws ClassNotFoundException {
        return (Class<Object>) Class.forName(name, true, snippets);
    }

    private static Method driver(String name, Class<?>... parameters) throws Exception {
        return load("ReadmeDriver").getMethod(name, parameters);
    }
}
