//! Pictures of scenes: a 2D scene from above ([`d2`]), a 3D scene through a
//! fixed camera ([`d3`]), and the PNG and GIF encoders both use.

use tiny_skia::Pixmap;

use crate::error::CliError as Error;

pub mod d2;
pub mod d3;

/// PNG bytes of a picture.
pub fn encode_png(pixmap: &Pixmap) -> Result<Vec<u8>, Error> {
    pixmap
        .encode_png()
        .map_err(|err| Error::Render(format!("cannot encode the PNG: {err}")))
}

/// Collects frames into an animated GIF.
pub struct GifRecorder {
    width: u16,
    height: u16,
    delay: u16,
    frames: Vec<Vec<u8>>,
}

impl GifRecorder {
    /// Frames of `width` x `height`, shown `delay_ms` each.
    pub fn new(width: u32, height: u32, delay_ms: u32) -> Result<GifRecorder, Error> {
        let fits = |v: u32| u16::try_from(v).ok().filter(|v| *v > 0);
        match (fits(width), fits(height)) {
            (Some(width), Some(height)) => Ok(GifRecorder {
                width,
                height,
                delay: (delay_ms / 10).clamp(1, u16::MAX as u32) as u16,
                frames: Vec::new(),
            }),
            _ => Err(Error::Render(format!(
                "a GIF is 1 to 65535 pixels wide and high, not {width}x{height}"
            ))),
        }
    }

    pub fn width(&self) -> u32 {
        self.width as u32
    }

    pub fn height(&self) -> u32 {
        self.height as u32
    }

    /// Adds a frame (it must have the recorder's size).
    pub fn push(&mut self, pixmap: &Pixmap) -> Result<(), Error> {
        if pixmap.width() != self.width as u32 || pixmap.height() != self.height as u32 {
            return Err(Error::Render("a GIF frame of the wrong size".to_string()));
        }
        self.frames.push(pixmap.data().to_vec());
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// The animation's bytes (each frame quantised to its own palette).
    pub fn encode(mut self) -> Result<Vec<u8>, Error> {
        let gif_error =
            |err: gif::EncodingError| Error::Render(format!("cannot encode the GIF: {err}"));
        let mut bytes = Vec::new();
        {
            let mut encoder =
                gif::Encoder::new(&mut bytes, self.width, self.height, &[]).map_err(gif_error)?;
            encoder
                .set_repeat(gif::Repeat::Infinite)
                .map_err(gif_error)?;
            for rgba in &mut self.frames {
                let mut frame = gif::Frame::from_rgba_speed(self.width, self.height, rgba, 20);
                frame.delay = self.delay;
                encoder.write_frame(&frame).map_err(gif_error)?;
            }
        }
        Ok(bytes)
    }
}
