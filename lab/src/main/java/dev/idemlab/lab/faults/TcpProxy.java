package dev.idemlab.lab.faults;

import org.netcrusher.core.filter.TransformFilter;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * A NetCrusher TCP proxy on 127.0.0.1 in front of a store's server, for the network's faults: freeze
 * every connection (bytes are held, nothing is lost), drop the server's replies (the requests arrive
 * and run; the answers vanish), drop the clients' requests (they never reach the server, so nothing
 * they asked for runs; the clients hear nothing back), and reset every connection. A store that connects through
 * {@link #port()} meets them, and keeps meeting them when the proxy is pointed at another server (one
 * that replaced a server that died). Every connection it closes is reset (SO_LINGER 0: an RST, not a
 * FIN), as a peer or a middlebox that drops a connection does: a client then loses the command it has
 * in flight to a "connection reset", the failure a store must not take for one that never left.
 * Thread-safe; closing it closes every proxied connection.
 */
public final class TcpProxy implements AutoCloseable {

    private final NioReactor reactor;
    private final int port;
    private final TransformFilter replies;
    private final TransformFilter requests;
    private volatile TcpCrusher crusher;
    private volatile boolean droppingReplies;
    private volatile boolean droppingRequests;

    private TcpProxy(NioReactor reactor, int port, String host, int targetPort) {
        this.reactor = reactor;
        this.port = port;
        this.replies = buffer -> {
            if (droppingReplies) {
                buffer.position(buffer.limit());
            }
        };
        this.requests = buffer -> {
            if (droppingRequests) {
                buffer.position(buffer.limit());
            }
        };
        this.crusher = crusherTo(host, targetPort);
    }

    private TcpCrusher crusherTo(String host, int targetPort) {
        return TcpCrusherBuilder.builder().withReactor(reactor)
                .withBindAddress("127.0.0.1", port)
                .withConnectAddress(host, targetPort)
                .withLingerMs(0)
                .withIncomingTransformFilterFactory(client -> replies)
                .withOutgoingTransformFilterFactory(client -> requests)
                .buildAndOpen();
    }

    /**
     * A proxy to {@code host:targetPort} on a free local port.
     *
     * @throws IOException when no local port could be had
     */
    public static TcpProxy to(String host, int targetPort) throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        NioReactor reactor = new NioReactor();
        try {
            return new TcpProxy(reactor, port, host, targetPort);
        } catch (RuntimeException e) {
            reactor.close();
            throw e;
        }
    }

    /**
     * A proxy to the server a URI names ({@code redis://host:port}, or a JDBC URL without its
     * {@code jdbc:}) on a free local port.
     *
     * @throws IOException when no local port could be had
     */
    public static TcpProxy to(java.net.URI server) throws IOException {
        return to(server.getHost(), server.getPort());
    }

    /** The local port a store connects to. */
    public int port() {
        return port;
    }

    /** Holds every byte in both directions until {@link #unfreeze()}; connections stay open. */
    public void freeze() {
        crusher.freeze();
    }

    public void unfreeze() {
        if (crusher.isFrozen()) {
            crusher.unfreeze();
        }
    }

    /** While on, the server's replies are dropped on their way back; requests still reach it and run. */
    public void dropReplies(boolean on) {
        droppingReplies = on;
    }

    /**
     * Ends {@link #dropReplies(boolean) dropping replies} so that no client reads half a reply or a
     * reply meant for a command it gave up on: every connection is reset, the flag goes off, and they
     * are reset again for what passed between the two. Clients reconnect.
     */
    public void stopDroppingReplies() {
        reset();
        dropReplies(false);
        reset();
    }

    /**
     * While on, the clients' requests are dropped on their way to the server: none of them runs, and
     * no reply comes. Unlike {@link #dropReplies(boolean)} a client that gave up on such a request can
     * be sure of nothing, but nothing did land.
     */
    public void dropRequests(boolean on) {
        droppingRequests = on;
    }

    /**
     * Ends {@link #dropRequests(boolean) dropping requests} so that the server never reads the tail of a
     * request whose head was dropped: every connection is reset, the flag goes off, and they are reset
     * again for what passed between the two. Clients reconnect.
     */
    public void stopDroppingRequests() {
        reset();
        dropRequests(false);
        reset();
    }

    /** Closes every proxied connection and stops listening: new connections are refused until {@link #reconnect()}. */
    public void disconnect() {
        crusher.close();
    }

    /** Listens again after {@link #disconnect()}. */
    public void reconnect() {
        crusher.open();
    }

    /**
     * Points the proxy at {@code host:targetPort} from now on, on the same local port, so that a store
     * connected through {@link #port()} reaches the new server when it reconnects: every proxied
     * connection is closed and the proxy listens again. A frozen proxy is unfrozen by it; dropping
     * replies stays as it was.
     *
     * @throws IllegalStateException when the local port cannot be listened on again (another process
     *     took it meanwhile); the proxy then listens nowhere, and the store reaches no server
     */
    public synchronized void retarget(String host, int targetPort) {
        crusher.close();
        try {
            crusher = crusherTo(host, targetPort);
        } catch (RuntimeException e) {
            throw new IllegalStateException("the proxy cannot listen on 127.0.0.1:" + port + " again to reach "
                    + host + ":" + targetPort + " (" + e + "): a store connected through it reaches no server", e);
        }
    }

    /** Closes every proxied connection at once, as a reset would; new connections are accepted. */
    public void reset() {
        crusher.closeAllPairs();
    }

    @Override
    public synchronized void close() {
        crusher.close();
        reactor.close();
    }
}
