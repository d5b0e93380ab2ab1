package dev.idemlab.lab.infra;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;

/**
 * Whether anything listens at a server address the user gave, asked with one TCP connect before a
 * client library is pointed there: a refused or unanswered connect is then one clear line, at once,
 * instead of a client's reconnect attempts and their log lines.
 */
final class Listening {

    /** How long a connect to a given server may take. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private Listening() { }

    /**
     * @param address {@code host:port}; an IPv6 host in brackets
     * @param what the server, for the message: "the Redis given by URL"
     * @throws ProvisioningException when nothing accepts a connection there
     */
    static void require(String address, String what) {
        int colon = address.lastIndexOf(':');
        String host = address.substring(0, colon).replace("[", "").replace("]", "");
        int port = Integer.parseInt(address.substring(colon + 1));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), (int) CONNECT_TIMEOUT.toMillis());
        } catch (IOException e) {
            String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new ProvisioningException("nothing answers at " + address + " (" + what + "): " + reason, e);
        }
    }
}
