import type { Metadata } from "next";
import "./globals.css";

export const metadata: Metadata = {
  title: "Parlance on Next.js",
  description: "A chat over the Parlance route handler",
};

export default function RootLayout({ children }: LayoutProps<"/">) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
