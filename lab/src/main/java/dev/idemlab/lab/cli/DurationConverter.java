package dev.idemlab.lab.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run's length as typed: {@code 500ms}, {@code 20s}, {@code 1m}; from {@link #MIN} to {@link #MAX}
 * unless a subclass names its own range. The refusal is written from the range the converter checks,
 * so the message and the rule cannot drift apart. Stateless and thread-safe.
 */
class DurationConverter implements ITypeConverter<Duration> {

    static final Duration MIN = Duration.ofMillis(100);
    static final Duration MAX = Duration.ofHours(1);

    private static final Pattern DURATION = Pattern.compile("(\\d{1,7})(ms|s|m|h)");

    private final Duration min;
    private final Duration max;

    DurationConverter() {
        this(MIN, MAX);
    }

    DurationConverter(Duration min, Duration max) {
        this.min = min;
        this.max = max;
    }

    /** The nemesis's {@code --duration}: at least a second, so that faults have time to land. */
    static final class AtLeastASecond extends DurationConverter {
        static final Duration MIN = Duration.ofSeconds(1);

        AtLeastASecond() {
            super(MIN, DurationConverter.MAX);
        }
    }

    @Override
    public Duration convert(String text) {
        Matcher matcher = DURATION.matcher(text.trim());
        Duration parsed = null;
        if (matcher.matches()) {
            long amount = Long.parseLong(matcher.group(1));
            parsed = switch (matcher.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofHours(amount);
            };
        }
        if (parsed == null || parsed.compareTo(min) < 0 || parsed.compareTo(max) > 0) {
            throw new TypeConversionException("must be a time from " + written(min) + " to " + written(max)
                    + " written like 500ms, 20s or 1m, got '" + text + "'");
        }
        return parsed;
    }

    /** A duration as the option takes it: the largest unit that writes it whole ({@code 1h}, {@code 90s}, {@code 100ms}). */
    static String written(Duration duration) {
        if (duration.toMillis() % 3_600_000 == 0) {
            return duration.toHours() + "h";
        }
        if (duration.toMillis() % 60_000 == 0) {
            return duration.toMinutes() + "m";
        }
        if (duration.toMillis() % 1_000 == 0) {
            return duration.toSeconds() + "s";
        }
        return duration.toMillis() + "ms";
    }
}
