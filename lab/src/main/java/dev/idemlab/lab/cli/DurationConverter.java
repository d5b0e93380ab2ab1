package dev.idemlab.lab.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A run's length as typed: {@code 500ms}, {@code 20s}, {@code 1m}; from {@link #MIN} to {@link #MAX}. */
final class DurationConverter implements ITypeConverter<Duration> {

    static final Duration MIN = Duration.ofMillis(100);
    static final Duration MAX = Duration.ofHours(1);

    private static final Pattern DURATION = Pattern.compile("(\\d{1,7})(ms|s|m|h)");

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
        if (parsed == null || parsed.compareTo(MIN) < 0 || parsed.compareTo(MAX) > 0) {
            throw new TypeConversionException("must be a time from 100ms to 1h written like 500ms, 20s or 1m, got '"
                    + text + "'");
        }
        return parsed;
    }
}
