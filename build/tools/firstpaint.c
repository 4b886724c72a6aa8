/* firstpaint: waits until the X screen ($DISPLAY) shows more than 16 distinct colours, i.e. a window
 * has painted real content, and prints the milliseconds since START_NS (CLOCK_REALTIME nanoseconds,
 * as from `date +%s%N`). It polls about every 10 ms, so it is much finer than ImageMagick's `import`
 * (100-200 ms a capture). Exit 0 when painted, 1 on timeout, 2 without a display.
 *
 * Build: cc -O2 -o build/bin/firstpaint build/tools/firstpaint.c -lX11
 * Usage: firstpaint START_NS [TIMEOUT_MS]
 */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* distinct counts distinct pixel values, stopping at limit+1. */
static int distinct(XImage *img, int limit) {
    unsigned long seen[64];
    int n = 0;
    for (int y = 0; y < img->height; y++) {
        for (int x = 0; x < img->width; x++) {
            unsigned long p = XGetPixel(img, x, y);
            int i = 0;
            while (i < n && seen[i] != p) i++;
            if (i == n) {
                seen[n++] = p;
                if (n > limit) return n;
            }
        }
    }
    return n;
}

int main(int argc, char **argv) {
    long long start = argc > 1 ? atoll(argv[1]) : now_ns();
    long long timeout_ms = argc > 2 ? atoll(argv[2]) : 20000;
    Display *d = NULL;
    for (int i = 0; i < 50 && !(d = XOpenDisplay(NULL)); i++) usleep(20000); /* the server may be busy */
    if (!d) {
        fprintf(stderr, "firstpaint: cannot open display\n");
        return 2;
    }
    Window root = DefaultRootWindow(d);
    XWindowAttributes wa;
    XGetWindowAttributes(d, root, &wa);
    for (;;) {
        XImage *img = XGetImage(d, root, 0, 0, wa.width, wa.height, AllPlanes, ZPixmap);
        int n = img ? distinct(img, 16) : 0;
        if (img) XDestroyImage(img);
        long long ms = (now_ns() - start) / 1000000LL;
        if (n > 16) {
            printf("%lld\n", ms);
            return 0;
        }
        if (ms > timeout_ms) {
            fprintf(stderr, "firstpaint: nothing painted within %lld ms\n", timeout_ms);
            return 1;
        }
        usleep(10000);
    }
}
