package io.kaas.protocol;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty side: one acceptor thread ({@code kaas-acceptor}), a few event loops ({@code kaas-network}),
 * epoll when the native transport loads, NIO otherwise. Per connection the pipeline is
 * {@code [tls → tls-principal →] frame-decoder → request-decoder → [authentication-gate →] dispatcher};
 * responses are written by the dispatcher.
 */
public final class KafkaServer {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaServer.class);

    private final EventLoopGroup acceptor;
    private final EventLoopGroup network;
    private final Class<? extends ServerChannel> channelType;
    private final ChannelGroup connections = new DefaultChannelGroup("kaas-connections", GlobalEventExecutor.INSTANCE);
    private final List<Channel> serverChannels = new ArrayList<>();
    private final InFlightRequests inFlight = new InFlightRequests();
    private volatile ConnectionLimits limits = ConnectionLimits.none();
    /** Open connections per listener name, for the connections gauge (read without touching the channels). */
    private final Map<String, AtomicInteger> connectionsByListener = new ConcurrentHashMap<>();
    /** Connections closed on accept, by the limit they hit ({@link ConnectionLimits#MAX_PER_IP}, ...). */
    private final Map<String, LongAdder> rejected = new ConcurrentHashMap<>();

    private final SocketBuffers buffers;

    /** {@code buffers}: the kernel buffer sizes of every listener's connections (socket.send/receive.buffer.bytes). */
    public KafkaServer(int networkThreads, SocketBuffers buffers) {
        this.buffers = buffers;
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.acceptor = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("kaas-acceptor"), io);
        this.network = new MultiThreadIoEventLoopGroup(networkThreads, new DefaultThreadFactory("kaas-network"), io);
        this.channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        LOG.debug("network transport: {}", epoll ? "epoll" : "nio");
    }

    /** Connection quotas for every listener bound after this call. */
    public void limitConnections(ConnectionLimits limits) {
        this.limits = limits;
    }

    /**
     * Binds one plaintext listener {@code listenerName} on {@code host:port} (an empty host: every interface; port 0:
     * one the OS picks); returns the bound address.
     */
    public InetSocketAddress bind(
            String listenerName, String host, int port, ServedApis served, RequestInvoker invoker, int maxFrameBytes)
            throws InterruptedException {
        return bind(listenerName, host, port, ListenerSecurity.plaintext(listenerName), served, invoker, maxFrameBytes);
    }

    /**
     * Binds one listener with its security: TLS adds Netty's {@code SslHandler} (engine from the
     * listener's {@code ssl.*} keys) in front and names the principal after the handshake; SASL adds
     * the {@link AuthenticationGate} before the dispatcher.
     */
    public InetSocketAddress bind(
            String listenerName,
            String host,
            int port,
            ListenerSecurity security,
            ServedApis served,
            RequestInvoker invoker,
            int maxFrameBytes)
            throws InterruptedException {
        AtomicInteger open = connectionsByListener.computeIfAbsent(listenerName, k -> new AtomicInteger());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptor, network)
                .channel(channelType)
                .option(ChannelOption.SO_RCVBUF, buffers.receiveOption())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_SNDBUF, buffers.sendOption())
                .childOption(ChannelOption.SO_RCVBUF, buffers.receiveOption())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        InetAddress peer = ch.remoteAddress().getAddress();
                        ConnectionLimits quotas = limits;
                        String limitHit = quotas.tryAcquire(peer);
                        if (limitHit != null) {
                            rejected.computeIfAbsent(limitHit, k -> new LongAdder())
                                    .increment();
                            quotas.logRefusal(ch.remoteAddress(), limitHit);
                            ch.close();
                            return;
                        }
                        ch.closeFuture().addListener(f -> quotas.release(peer));
                        connections.add(ch);
                        open.incrementAndGet();
                        ch.closeFuture().addListener(f -> open.decrementAndGet());
                        ClientSession session = new ClientSession(security, ch.remoteAddress());
                        ch.attr(ClientSession.KEY).set(session);
                        ch.closeFuture().addListener(f -> session.closed());
                        if (security.tls()) {
                            ch.pipeline()
                                    .addLast("tls", new SslHandler(security.newServerEngine(ch.remoteAddress())))
                                    .addLast("tls-principal", new TlsPrincipalHandler());
                        }
                        ch.pipeline()
                                .addLast(
                                        "frame-decoder",
                                        new FrameDecoder(() -> session.authenticated()
                                                ? maxFrameBytes
                                                : Math.min(maxFrameBytes, security.saslMaxReceiveBytes())))
                                .addLast("request-decoder", new RequestDecoder(served));
                        if (security.sasl()) {
                            ch.pipeline().addLast("authentication-gate", new AuthenticationGate());
                        }
                        ch.pipeline().addLast("dispatcher", new RequestDispatcher(invoker, inFlight));
                    }
                });
        InetSocketAddress address = host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
        Channel channel = bootstrap.bind(address).sync().channel();
        serverChannels.add(channel);
        return (InetSocketAddress) channel.localAddress();
    }

    /** Open connections per listener name right now. */
    public Map<String, Integer> connectionsByListener() {
        Map<String, Integer> out = new TreeMap<>();
        connectionsByListener.forEach((name, n) -> out.put(name, n.get()));
        return out;
    }

    /** Connections closed as soon as they were accepted since the start, by the limit they hit. */
    public Map<String, Long> rejectedConnections() {
        Map<String, Long> out = new TreeMap<>();
        rejected.forEach((limit, n) -> out.put(limit, n.sum()));
        return out;
    }

    /**
     * Direct memory Netty's default allocator holds (the frames of requests being read and handled, responses
     * being written, and its pools' chunks), or -1 when the allocator does not say. An idle connection holds
     * none: a read buffer is released once its frame is copied out.
     */
    public long directMemoryBytes() {
        return ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p
                ? p.metric().usedDirectMemory()
                : -1;
    }

    /** Closes the listening sockets and stops reading requests on every open connection. */
    public void stopAccepting() throws InterruptedException {
        for (Channel c : serverChannels) {
            c.close().sync();
        }
        connections.forEach(c -> c.config().setAutoRead(false));
    }

    /**
     * Waits up to {@code drainTimeoutMs} for requests in flight to be answered, then closes every
     * connection and the event loops.
     */
    public void drainAndClose(long drainTimeoutMs) throws InterruptedException {
        if (!inFlight.awaitNone(drainTimeoutMs, TimeUnit.MILLISECONDS)) {
            LOG.warn(
                    "{} requests still in flight after {} ms; closing their connections",
                    inFlight.count(),
                    drainTimeoutMs);
        }
        connections.close().awaitUninterruptibly();
        network.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
        acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
    }
}
