package dev.idemlab.provider.http;

import dev.idemlab.provider.FakePaymentProvider;

import java.time.Duration;

/**
 * The command line of {@link ProviderServiceMain}, parsed by hand. Immutable.
 *
 * @param port the port, 0 for an ephemeral one
 * @param latencyMs the provider's latency per charge in milliseconds
 * @param dedupe whether the provider deduplicates on the downstream key
 * @param fence whether the provider checks fences
 * @param help whether only the usage was asked for
 */
record ServiceOptions(int port, long latencyMs, boolean dedupe, boolean fence, boolean help) {

    static final String USAGE = "usage: ProviderServiceMain [--port N] [--latency-ms N] [--dedupe] [--fence]";

    /** A command line that breaks a rule; the message states the rule. */
    static final class UsageException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        UsageException(String rule) {
            super(rule);
        }
    }

    /**
     * Parses the arguments; {@code --name value} and {@code --name=value} are both accepted.
     *
     * @throws UsageException stating the rule the arguments broke
     */
    static ServiceOptions parse(String... args) {
        int port = 0;
        long latencyMs = FakePaymentProvider.DEFAULT_LATENCY.toMillis();
        boolean dedupe = false;
        boolean fence = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            int equals = arg.indexOf('=');
            String name = equals < 0 ? arg : arg.substring(0, equals);
            switch (name) {
                case "--port" -> {
                    String value = equals < 0 ? valueAfter(args, i++, name) : arg.substring(equals + 1);
                    port = (int) number(name, value, 0, 65535);
                }
                case "--latency-ms" -> {
                    String value = equals < 0 ? valueAfter(args, i++, name) : arg.substring(equals + 1);
                    latencyMs = number(name, value, 0, Long.MAX_VALUE / 1_000_000);
                }
                case "--dedupe" -> dedupe = flag(name, equals);
                case "--fence" -> fence = flag(name, equals);
                case "--help", "-h" -> {
                    return new ServiceOptions(port, latencyMs, dedupe, fence, true);
                }
                default -> throw new UsageException("unknown option " + arg);
            }
        }
        return new ServiceOptions(port, latencyMs, dedupe, fence, false);
    }

    /** The provider these options describe. */
    FakePaymentProvider provider() {
        return FakePaymentProvider.builder()
                .latency(Duration.ofMillis(latencyMs))
                .deduplicateOnKey(dedupe)
                .checkFences(fence)
                .build();
    }

    private static String valueAfter(String[] args, int i, String name) {
        if (i + 1 >= args.length) {
            throw new UsageException(name + " needs a value");
        }
        return args[i + 1];
    }

    private static boolean flag(String name, int equals) {
        if (equals >= 0) {
            throw new UsageException(name + " takes no value");
        }
        return true;
    }

    private static long number(String name, String value, long min, long max) {
        long number;
        try {
            number = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new UsageException(name + " must be a whole number " + min + " to " + max + ": " + value);
        }
        if (number < min || number > max) {
            throw new UsageException(name + " must be a whole number " + min + " to " + max + ": " + value);
        }
        return number;
    }
}
