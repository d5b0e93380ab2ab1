package dev.idemlab.provider.http;

import java.io.PrintStream;

/**
 * Runs the provider service as its own process:
 * {@code java -cp ... dev.idemlab.provider.http.ProviderServiceMain [--port N] [--latency-ms N]
 * [--dedupe] [--fence]}.
 *
 * <p>Once it listens it prints exactly one line to standard output,
 * {@code provider listening on http://127.0.0.1:PORT}, for a parent process to read. It runs
 * until it is terminated (SIGTERM stops the server cleanly). Exit codes: 0 stopped, 1 could not
 * start, 2 usage error (with a one-line message on standard error).
 */
public final class ProviderServiceMain {

    /** What the ready line starts with; the service's address follows it. */
    public static final String LISTENING = "provider listening on ";

    private ProviderServiceMain() { }

    public static void main(String[] args) {
        int exitCode = run(args, System.out, System.err);
        if (exitCode != 0) {
            System.exit(exitCode);
        }
    }

    /**
     * Parses, starts and serves until the service stops.
     *
     * @return the exit code
     */
    static int run(String[] args, PrintStream out, PrintStream err) {
        ServiceOptions options;
        try {
            options = ServiceOptions.parse(args);
        } catch (ServiceOptions.UsageException e) {
            err.println("provider: " + e.getMessage() + " (" + ServiceOptions.USAGE + ")");
            return 2;
        }
        if (options.help()) {
            out.println(ServiceOptions.USAGE);
            return 0;
        }
        ProviderService service;
        try {
            service = ProviderService.start(options.provider(), options.port());
        } catch (IllegalStateException e) {
            err.println("provider: " + e.getMessage() + (e.getCause() == null ? "" : ": " + e.getCause().getMessage()));
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(service::close, "provider-shutdown"));
        out.println(LISTENING + service.uri());
        out.flush();
        try {
            service.awaitStopped();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            service.close();
        }
        return 0;
    }
}
