package dev.idemlab.lab.cli;

import dev.idemlab.lab.probe.Probe;
import dev.idemlab.lab.probe.ProbeReport;
import dev.idemlab.lab.probe.ProbeRow;
import dev.idemlab.lab.probe.ProbeSettings;
import dev.idemlab.lab.report.ReportFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code lab probe}: a black-box check of any HTTP API that claims Idempotency-Key support. Prints a
 * conformance table; exits 1 when a check fails, naming the violated rule.
 */
@Command(name = "probe", mixinStandardHelpOptions = true,
        description = "Checks an HTTP API that claims Idempotency-Key support (draft-ietf-httpapi-idempotency-key-"
                + "header-07): concurrent identical requests (identical answers? how many resources? how many "
                + "charges, if the server offers GET /ledger?), the key with another body (422?), no key (400?), a "
                + "retry after success (replayed?), a retry after a 5xx (run again? needs POST /faults), keys of 255 "
                + "and 256 characters (N and N+1 with --key-max-length N; with --key-format uuid, every key a random "
                + "UUID and one of 36 characters that is not a UUID instead), the key in other syntaxes (bare token, "
                + "List, two field lines, empty), one key from two clients, a retry after an application 4xx, "
                + "problem details on refusals, Retry-After on 409. Each row says whose rule it checks: the draft's "
                + "(with its section), common practice, this lab's, or the API's published rule where --key, "
                + "--key-format, --key-max-length, --stores-5xx or --in-flight declares it. Prints a conformance "
                + "table, each row's verdict first and within 120 columns (--format markdown or json for the whole "
                + "rows); exit 1 names the violated rule.")
final class ProbeCommand implements Callable<Integer> {

    static final int MAX_CONCURRENCY = 256;

    @Spec
    CommandSpec spec;

    @Option(names = "--url", paramLabel = "URL", required = true,
            description = "The route to check, e.g. http://127.0.0.1:8080/orders/o-1/charge.")
    String url;

    @Option(names = "--path", paramLabel = "PATH", description = "Check this path on --url's server instead of its own.")
    String path;

    @Option(names = "--method", paramLabel = "METHOD", defaultValue = "POST",
            description = "The method that creates the resource: POST or PATCH. Default: ${DEFAULT-VALUE}.")
    String method;

    @Option(names = "--body", paramLabel = "JSON", defaultValue = ProbeSettings.DEFAULT_BODY,
            description = "The JSON body, with an {amount} placeholder the probe varies. Default: ${DEFAULT-VALUE}.")
    String body;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "client-a",
            description = "Sent as 'Authorization: Bearer TOKEN'; 'none' sends no Authorization. Default: ${DEFAULT-VALUE}.")
    String token;

    @Option(names = "--other-token", paramLabel = "TOKEN", defaultValue = "client-b",
            description = "A second client's token, for the check of one key from two clients; 'none' skips it. "
                    + "Default: ${DEFAULT-VALUE}.")
    String otherToken;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "8",
            description = "Identical requests sent at once, 2 to " + MAX_CONCURRENCY + ". Default: ${DEFAULT-VALUE}.")
    int concurrency;

    @Mixin
    PublishedRuleOptions published;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table (each row's verdict first, its expectation and answer on lines of their own, within "
                    + "120 columns), markdown (a row per line, for a page) or json (every field). Default: ${DEFAULT-VALUE}.")
    ReportFormat format;

    @Option(names = "--out", paramLabel = "FILE", description = OutputOptions.OUT_HELP)
    Path out;

    @Override
    public Integer call() throws IOException, InterruptedException {
        ProbeSettings settings = settings();
        OutputOptions output = new OutputOptions();
        output.format = format;
        output.out = out;
        output.validate();
        Probe probe = new Probe(settings);
        List<ProbeRow> rows;
        try {
            rows = probe.run();
        } catch (java.net.ConnectException e) {
            throw new IllegalStateException("nothing answers at " + settings.url() + " (connection refused)");
        }
        String report = switch (format) {
            case TABLE -> ProbeReport.render(settings, probe.ledgerOffered(), rows);
            case MARKDOWN -> ProbeReport.markdown(settings, probe.ledgerOffered(), rows);
            case JSON -> ProbeReport.json(settings, probe.ledgerOffered(), rows);
        };
        output.emit(report, spec.commandLine().getOut());
        return rows.stream().anyMatch(row -> row.verdict() == ProbeRow.Verdict.FAIL) ? 1 : 0;
    }

    /** @throws UsageException naming the rule an option breaks */
    ProbeSettings settings() {
        URI target;
        try {
            target = new URI(url);
        } catch (java.net.URISyntaxException e) {
            throw new UsageException("--url must be an absolute http URL, got '" + url + "'");
        }
        if (!"http".equals(target.getScheme()) && !"https".equals(target.getScheme()) || target.getHost() == null) {
            throw new UsageException("--url must be an absolute http URL, got '" + url + "'");
        }
        if (path != null) {
            if (!path.startsWith("/")) {
                throw new UsageException("--path must start with '/', got '" + path + "'");
            }
            target = URI.create(target.getScheme() + "://" + target.getRawAuthority() + path);
        }
        String upper = method.toUpperCase(Locale.ROOT);
        if (!upper.equals("POST") && !upper.equals("PATCH")) {
            throw new UsageException("--method must be POST or PATCH (the methods Idempotency-Key makes fault-tolerant), got '"
                    + method + "'");
        }
        if (!body.contains(ProbeSettings.AMOUNT)) {
            throw new UsageException("--body must contain the " + ProbeSettings.AMOUNT
                    + " placeholder, so that the probe can send another body with the same key");
        }
        if (concurrency < 2 || concurrency > MAX_CONCURRENCY) {
            throw new UsageException("--concurrency must be between 2 and " + MAX_CONCURRENCY + ", got " + concurrency);
        }
        String other = "none".equals(otherToken) ? null : otherToken;
        if (other != null && other.equals(token)) {
            throw new UsageException("--other-token must name another client than --token, got '" + other + "' twice");
        }
        return new ProbeSettings(target, upper, body, "none".equals(token) ? null : token, concurrency, other,
                published.rules());
    }
}
