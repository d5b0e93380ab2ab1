package dev.idemlab.examples.payments.webflux;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes the port the service listens on to {@code payments.port-file} once it is ready to serve, so
 * that a parent process that started it on port 0 learns where it is, as the servlet sample does. The
 * file appears whole (written beside it, then moved). Thread-safe.
 */
@Component
class PortFile implements ApplicationListener<ApplicationReadyEvent> {

    private final PaymentsProperties properties;

    PortFile(PaymentsProperties properties) {
        this.properties = properties;
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        Path file = properties.portFile();
        if (file == null) {
            return;
        }
        String port = event.getApplicationContext().getEnvironment().getProperty("local.server.port");
        try {
            Path written = Files.writeString(file.resolveSibling(file.getFileName() + ".tmp"), port + "\n");
            Files.move(written, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the port to " + file, e);
        }
    }
}
